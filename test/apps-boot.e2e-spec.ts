import { runToExit, startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { dropPrefix } from './support/redis-prefix';

// Process start-up on a loaded shared machine can exceed Jest's 5 s default.
jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);

// Runs after both apps' describe blocks stopped them: the seeded routes, leases and heartbeats go.
afterAll(() => dropPrefix(prefix));

describe.each([
  ['coordinator', 'COORDINATOR_PORT'],
  ['batch-worker', 'WORKER_PORT'],
] as const)('%s process', (name, portVar) => {
  let app: StartedApp;

  beforeAll(async () => {
    app = await startApp(name, { [portVar]: '0', REDIS_KEY_PREFIX: prefix });
  });

  afterAll(async () => {
    await app?.stop('SIGKILL');
  });

  it('answers /healthz/live and /healthz/ready with 200 once Redis is reachable', async () => {
    const live = await fetch(`${app.urls.http}/healthz/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.urls.http}/healthz/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { redis: { ready: true } } });
  });

  it('announces its Redis key prefix at start', () => {
    const events = app.logs
      .filter((l) => l.includes('"event":"redis"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toEqual([
      expect.objectContaining({ keyPrefix: prefix, msg: `redis key prefix "${prefix}"` }),
    ]);
  });

  it('exposes Prometheus metrics', async () => {
    const res = await fetch(`${app.urls.http}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain(`process_cpu_seconds_total{service="${name}"}`);
  });

  it('stops cleanly with exit code 0 on SIGTERM', async () => {
    const second = await startApp(name, { [portVar]: '0', REDIS_KEY_PREFIX: prefix });
    await expect(second.stop('SIGTERM')).resolves.toBe(0);
    expect(second.logs.some((l) => l.includes('"event":"stopped"'))).toBe(true);
  });

  it('refuses to boot with a bad variable, naming it and the reason, exit non-zero', async () => {
    const { code, output } = await runToExit(name, {
      [portVar]: '99999',
      REDIS_URL: 'http://localhost',
    });
    expect(code).toBe(1);
    expect(output).toContain(`${portVar}: must be between 0 and 65535 (got "99999")`);
    expect(output).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
  });
});

describe('readiness without Redis', () => {
  it('reports 503 naming redis when Redis does not answer', async () => {
    const app = await startApp('coordinator', {
      COORDINATOR_PORT: '0',
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    try {
      const ready = await fetch(`${app.urls.http}/healthz/ready`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { checks: { redis: { ready: boolean } } };
      expect(body.checks.redis.ready).toBe(false);
    } finally {
      await app.stop('SIGKILL');
    }
  });
});
