import type { RedisClient } from '@mesh/config';
import { RateLimitedError, routingKeys, type Tenant, type TenantRateLimit } from '@mesh/routing';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the window frees capacity. */
  retryAfterMs: number;
  /** Points left in the shared window as of this router's last lease, plus its unspent lease. */
  remaining: number;
}

export interface TenantRateLimiterOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
  /** Share of a window's points one lease takes (default 1 %); at least 1 point. */
  leaseFraction?: number;
  /** Most points one lease takes (default 100). */
  maxLease?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

type Window = ReturnType<typeof rateLimitWindow>;

/** The fixed window used for a tenant's limit: `burst` points per window, averaging ≤ rps. */
export function rateLimitWindow(limit: TenantRateLimit): {
  points: number;
  durationSeconds: number;
} {
  return {
    points: limit.burst,
    // Whole seconds; rounding up keeps the average at or below the rate.
    durationSeconds: Math.max(1, Math.ceil(limit.burst / limit.requestsPerSecond)),
  };
}

/**
 * Takes up to ARGV[1] points of the window KEYS[1] (ARGV[2] points per ARGV[3] ms), starting
 * the window on first use. Returns {granted, ms left in the window, points taken so far}. The
 * counter is the one rate-limiter-flexible's Redis limiter keeps, so both count alike.
 */
const LEASE_SCRIPT = `
local want = tonumber(ARGV[1])
local points = tonumber(ARGV[2])
local taken = redis.call('INCRBY', KEYS[1], want)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
local granted = math.max(0, math.min(want, points - (taken - want)))
return {granted, ttl, math.min(taken, points)}
`;

interface Lease {
  /** Local clock time the window ends (from Redis' PTTL). */
  windowEnd: number;
  /** Points leased from Redis and not yet spent here. */
  points: number;
  /** Points left in Redis' window after the last lease. */
  shared: number;
}

/**
 * Per-tenant request rate shared by every router replica through Redis, without a Redis round
 * trip per request: each router leases a small block of a window's points (1 % by default)
 * and spends them locally, asking for the next block when half is spent. Points are counted in
 * Redis when leased, so replicas together never admit more than the window's points; what a
 * replica leased and did not spend by the window's end is lost — the tolerance is an
 * under-admission of at most one lease per replica per window (plus, at a window edge, one
 * Redis round trip of clock skew). Small limits lease one point at a time and stay exact.
 * If Redis is not ready, an in-process limiter with the same window takes over.
 */
export class TenantRateLimiter {
  private readonly leases = new Map<string, Lease>();
  /** The lease request in flight per key: at most one at a time. */
  private readonly pending = new Map<string, Promise<Lease | undefined>>();
  private readonly memory = new Map<string, RateLimiterMemory>();
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: TenantRateLimiterOptions,
  ) {
    this.prefix = routingKeys(options.keyPrefix).rateLimit;
    this.now = options.now ?? Date.now;
  }

  async consume(tenant: Pick<Tenant, 'name' | 'rateLimit'>): Promise<RateLimitDecision> {
    const window = rateLimitWindow(tenant.rateLimit);
    const key = `${this.prefix}:${window.points}x${window.durationSeconds}s:${tenant.name}`;
    let lease = this.current(key);
    if (!lease || lease.points === 0) {
      if (this.redis.status !== 'ready') return this.consumeInMemory(key, window);
      lease = await this.requestLease(key, window);
      // Concurrent callers share one lease request; when they spent the block this one waited
      // for, it asks again while the shared window has points (each round takes a block).
      while (lease && lease.points === 0 && lease.shared > 0) {
        lease = await this.requestLease(key, window);
      }
      if (!lease) return this.consumeInMemory(key, window);
    }
    if (lease.points === 0) {
      const retryAfterMs = Math.max(1, lease.windowEnd - this.now());
      return { allowed: false, retryAfterMs, remaining: 0 };
    }
    lease.points -= 1;
    // Ahead of need: the next block is on its way before this one runs out.
    if (lease.points <= this.leaseSize(window.points) / 2 && lease.shared > 0) {
      void this.requestLease(key, window);
    }
    return { allowed: true, retryAfterMs: 0, remaining: lease.points + lease.shared };
  }

  /** Like consume, but throws RateLimitedError (→ 429 with Retry-After) when refused. */
  async admit(tenant: Pick<Tenant, 'name' | 'rateLimit'>): Promise<void> {
    const decision = await this.consume(tenant);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterMs);
  }

  /** This window's lease; an ended window's is dropped with its unspent points. */
  private current(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && this.now() >= lease.windowEnd) {
      this.leases.delete(key);
      return undefined;
    }
    return lease;
  }

  private leaseSize(points: number): number {
    const fraction = this.options.leaseFraction ?? 0.01;
    return Math.max(1, Math.min(this.options.maxLease ?? 100, Math.floor(points * fraction)));
  }

  private requestLease(key: string, window: Window): Promise<Lease | undefined> {
    let p = this.pending.get(key);
    if (!p) {
      p = this.lease(key, window).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  /**
   * One block of points from Redis, added to this window's local lease (a new window starts a
   * fresh one). Undefined when Redis failed; the caller then falls back to memory.
   */
  private async lease(
    key: string,
    { points, durationSeconds }: Window,
  ): Promise<Lease | undefined> {
    const windowMs = durationSeconds * 1000;
    let reply: [number, number, number];
    try {
      reply = (await this.redis.eval(
        LEASE_SCRIPT,
        1,
        key,
        this.leaseSize(points),
        points,
        windowMs,
      )) as [number, number, number];
    } catch {
      return undefined;
    }
    const [granted, ttl, taken] = reply;
    const windowEnd = this.now() + ttl;
    let lease = this.current(key);
    // Window ends half a window apart are different windows (the old one rolled over in Redis).
    if (!lease || windowEnd - lease.windowEnd > windowMs / 2) {
      lease = { windowEnd, points: 0, shared: 0 };
      this.leases.set(key, lease);
    }
    lease.windowEnd = windowEnd;
    lease.points += granted;
    lease.shared = points - taken;
    return lease;
  }

  private async consumeInMemory(
    key: string,
    { points, durationSeconds: duration }: Window,
  ): Promise<RateLimitDecision> {
    let limiter = this.memory.get(key);
    if (!limiter) {
      limiter = new RateLimiterMemory({ keyPrefix: key, points, duration });
      this.memory.set(key, limiter);
    }
    try {
      const res = await limiter.consume('local', 1);
      return { allowed: true, retryAfterMs: 0, remaining: res.remainingPoints };
    } catch (rejection: unknown) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterMs: Math.max(1, rejection.msBeforeNext), remaining: 0 };
      }
      throw rejection;
    }
  }
}
