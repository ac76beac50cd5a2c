import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from './routing.errors';
import { routingKeys } from './routing.keys';
import type { Tenant, TenantRateLimit } from './routing.types';

export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed; otherwise how long until the window frees capacity. */
  retryAfterMs: number;
  remaining: number;
}

export interface TenantRateLimiterOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
}

/** The fixed window used for a tenant's limit: `burst` points per window, averaging ≤ rps. */
export function rateLimitWindow(limit: TenantRateLimit): {
  points: number;
  durationSeconds: number;
} {
  return {
    points: limit.burst,
    // Whole seconds (the library's unit); rounding up keeps the average at or below the rate.
    durationSeconds: Math.max(1, Math.ceil(limit.burst / limit.requestsPerSecond)),
  };
}

/**
 * Per-tenant request rate shared by every router replica, counted in Redis by
 * rate-limiter-flexible (one atomic script per request). If Redis is unreachable, an
 * in-process limiter with the same window takes over rather than failing every request.
 */
export class TenantRateLimiter {
  private readonly limiters = new Map<string, RateLimiterRedis>();
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    options: TenantRateLimiterOptions,
  ) {
    this.prefix = routingKeys(options.keyPrefix).rateLimit;
  }

  async consume(tenant: Pick<Tenant, 'name' | 'rateLimit'>): Promise<RateLimitDecision> {
    try {
      const res = await this.limiterFor(tenant.rateLimit).consume(tenant.name, 1);
      return { allowed: true, retryAfterMs: 0, remaining: res.remainingPoints };
    } catch (rejection: unknown) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, retryAfterMs: Math.max(1, rejection.msBeforeNext), remaining: 0 };
      }
      throw rejection;
    }
  }

  /** Like consume, but throws RateLimitedError (→ 429 with Retry-After) when refused. */
  async admit(tenant: Pick<Tenant, 'name' | 'rateLimit'>): Promise<void> {
    const decision = await this.consume(tenant);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterMs);
  }

  /** One limiter per distinct window; a changed tenant limit starts fresh counters. */
  private limiterFor(limit: TenantRateLimit): RateLimiterRedis {
    const { points, durationSeconds } = rateLimitWindow(limit);
    const id = `${points}x${durationSeconds}s`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const keyPrefix = `${this.prefix}:${id}`;
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix,
        points,
        duration: durationSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }),
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
