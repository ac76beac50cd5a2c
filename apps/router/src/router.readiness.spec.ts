import type { BackendDirectory } from '@mesh/inference';
import { BackendReadyCheck } from './router.readiness';

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
