import type { Tenant } from '@mesh/routing';
import type { InFlightLimiter, InFlightRelease, TenantRateLimiter } from '@mesh/tenancy';

/**
 * Per-tenant admission: the shared (Redis) rate limit first, then this process's in-flight
 * cap. A refused request costs one Redis round trip and never reaches a backend.
 */
export class AdmissionService {
  constructor(
    private readonly rateLimiter: TenantRateLimiter,
    private readonly inFlight: InFlightLimiter,
  ) {}

  /** Throws RateLimitedError / TooManyInFlightError; the caller must call the release. */
  async admit(tenant: Tenant): Promise<InFlightRelease> {
    await this.rateLimiter.admit(tenant);
    return this.inFlight.acquire(tenant);
  }
}
