import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { RateLimitedError } from '@mesh/routing';
import { pollUntil } from '../../../test/support/poll';
import { rateLimitWindow, TenantRateLimiter } from './tenant-rate-limiter';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FILE_PREFIX = uniquePrefix(__filename);
const clients: RedisClient[] = [];
let counter = 0;

/** Resolves once the connection is ready: the limiter falls back to memory before that. */
async function connect(): Promise<RedisClient> {
  const client = createRedis('commands', {
    url: REDIS_URL,
    name: 'test-tenant-rate-limiter',
    lazyConnect: true,
  });
  clients.push(client);
  await client.connect();
  return client;
}

function freshPrefix(): string {
  counter += 1;
  return `${FILE_PREFIX}:${counter}`;
}

// 2 requests/s with a burst of 3 → 3 requests per 2-second window.
const tight = { name: 'globex', rateLimit: { requestsPerSecond: 2, burst: 3 } };

afterAll(async () => {
  const redis = await connect();
  const keys = await redis.keys(`${FILE_PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await Promise.all(clients.map((c) => closeRedis(c)));
});

describe('TenantRateLimiter (real Redis)', () => {
  it('admits the burst, then refuses with a retry-after inside the window', async () => {
    const limiter = new TenantRateLimiter(await connect(), { keyPrefix: freshPrefix() });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(tight));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    // Refused means there is a wait, and it never reaches past the limiter's own window
    // (computed from the configured limit, not timed).
    const refused = decisions[3]!;
    const windowMs = rateLimitWindow(tight.rateLimit).durationSeconds * 1000;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(windowMs);
  });

  it('admit() throws RateLimitedError carrying Retry-After seconds', async () => {
    const limiter = new TenantRateLimiter(await connect(), { keyPrefix: freshPrefix() });
    for (let i = 0; i < 3; i++) await limiter.admit(tight);
    const err: unknown = await limiter.admit(tight).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).code).toBe('RATE_LIMITED');
    expect((err as RateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((err as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(2);
  });

  it('shares one budget between router replicas with their own connections', async () => {
    const keyPrefix = freshPrefix();
    const replicas = await Promise.all(
      [0, 1, 2].map(async () => new TenantRateLimiter(await connect(), { keyPrefix })),
    );
    const decisions = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => replicas[i % 3]!.consume(tight)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
  });

  it('leases blocks: two routers never admit more than the window, and lose at most a lease each', async () => {
    const keyPrefix = freshPrefix();
    // 1000 points per 10 s window; leases of 10 points (1 %).
    const big = { name: 'acme', rateLimit: { requestsPerSecond: 100, burst: 1000 } };
    const [a, b] = await Promise.all(
      [0, 1].map(async () => new TenantRateLimiter(await connect(), { keyPrefix })),
    );
    const decisions = await Promise.all(
      Array.from({ length: 1500 }, (_, i) => (i % 3 === 0 ? a! : b!).consume(big)),
    );
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeLessThanOrEqual(1000);
    expect(allowed).toBeGreaterThanOrEqual(1000 - 2 * 10);
    const redis = await connect();
    const counted = Number(await redis.get(`${keyPrefix}:ratelimit:1000x10s:acme`));
    expect(counted).toBeGreaterThanOrEqual(1000);
  });

  it('spends leased points without a Redis call per request', async () => {
    const keyPrefix = freshPrefix();
    const redis = await connect();
    const limiter = new TenantRateLimiter(redis, { keyPrefix });
    const big = { name: 'acme', rateLimit: { requestsPerSecond: 5000, burst: 10000 } };
    let evals = 0;
    const original = redis.eval.bind(redis);
    redis.eval = ((...args: Parameters<typeof redis.eval>) => {
      evals += 1;
      return original(...args);
    }) as typeof redis.eval;
    for (let i = 0; i < 1000; i++) expect((await limiter.consume(big)).allowed).toBe(true);
    // Leases of 100 points: about one call per 100 requests (plus the one ahead of need).
    expect(evals).toBeLessThanOrEqual(12);
    expect(evals).toBeGreaterThanOrEqual(10);
  });

  it('counts tenants separately and keeps keys under the mesh prefix', async () => {
    const keyPrefix = freshPrefix();
    const redis = await connect();
    const limiter = new TenantRateLimiter(redis, { keyPrefix });
    for (let i = 0; i < 3; i++) await limiter.consume(tight);
    expect((await limiter.consume(tight)).allowed).toBe(false);
    expect((await limiter.consume({ ...tight, name: 'acme' })).allowed).toBe(true);
    const keys = await redis.keys(`${keyPrefix}:*`);
    expect(keys.sort()).toEqual([
      `${keyPrefix}:ratelimit:3x2s:acme`,
      `${keyPrefix}:ratelimit:3x2s:globex`,
    ]);
  });

  it('admits again once the window has passed', async () => {
    const limiter = new TenantRateLimiter(await connect(), { keyPrefix: freshPrefix() });
    const fast = { name: 'acme', rateLimit: { requestsPerSecond: 1, burst: 1 } };
    expect((await limiter.consume(fast)).allowed).toBe(true);
    const refused = await limiter.consume(fast);
    expect(refused.allowed).toBe(false);
    // Retry-After is what a client waits: once it has passed, the limiter admits again.
    await new Promise((r) => setTimeout(r, refused.retryAfterMs));
    await pollUntil(async () => ((await limiter.consume(fast)).allowed ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the window to reopen',
    });
  });

  it('falls back to an in-process limit with the same window while Redis is unreachable', async () => {
    // Never connected: the status is not "ready", so no command is queued for later.
    const offline = createRedis('commands', {
      url: REDIS_URL,
      name: 'test-tenant-rate-limiter-offline',
      lazyConnect: true,
    });
    clients.push(offline);
    const limiter = new TenantRateLimiter(offline, { keyPrefix: freshPrefix() });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(tight));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(offline.status).toBe('wait');
  });
});
