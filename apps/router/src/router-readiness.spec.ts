import type { BackendDirectory } from '@mesh/inference';
import { BackendReadyCheck, RedisReadyCheck } from './router-readiness';

function directory(healthy: number[]): BackendDirectory {
  return {
    unroutableReason: () => undefined,
    healthyBackends: () => healthy.shift() ?? 0,
  };
}

describe('BackendReadyCheck', () => {
  it('is not ready before any backend has answered discovery', async () => {
    const check = new BackendReadyCheck(directory([0, 0]));
    expect(await check.check()).toEqual({
      ready: false,
      detail: 'no backend has been ready yet',
    });
    expect((await check.check()).ready).toBe(false);
  });

  it('stays ready through a later outage, reporting it, so routers keep their Service', async () => {
    const check = new BackendReadyCheck(directory([0, 2, 0, 1]));
    expect((await check.check()).ready).toBe(false);
    expect(await check.check()).toEqual({ ready: true, detail: '2 ready' });
    expect(await check.check()).toEqual({
      ready: true,
      detail: 'no backend is ready now: predictions answer 503 until one is',
    });
    expect(await check.check()).toEqual({ ready: true, detail: '1 ready' });
  });
});

describe('RedisReadyCheck', () => {
  const down = { name: 'redis', check: () => Promise.reject(new Error('Command timed out')) };
  const hangs = { name: 'redis', check: () => new Promise<never>(() => undefined) };
  const up = { name: 'redis', check: () => Promise.resolve({ ready: true }) };

  it('is not ready while Redis is down before the routing table was ever loaded', async () => {
    const check = new RedisReadyCheck(down, { isLoaded: () => false });
    expect(await check.check()).toEqual({ ready: false, detail: 'Command timed out' });
  });

  it('stays ready through a Redis outage once the table is cached, reporting it', async () => {
    for (const ping of [down, hangs]) {
      const result = await new RedisReadyCheck(ping, { isLoaded: () => true }, 20).check();
      expect(result.ready).toBe(true);
      expect(result.detail).toContain('Redis unreachable');
    }
    expect(await new RedisReadyCheck(up, { isLoaded: () => true }).check()).toEqual({
      ready: true,
    });
  });
});
