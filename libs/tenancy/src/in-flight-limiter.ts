import { TooManyInFlightError, type Tenant } from '@mesh/routing';

/** Releases one in-flight slot; calling it more than once has no further effect. */
export type InFlightRelease = () => void;

/**
 * Per-process cap on concurrent requests per tenant (`maxInFlight`). It protects this
 * router's event loop and backends, so it is deliberately not shared across replicas.
 */
export class InFlightLimiter {
  private readonly counts = new Map<string, number>();

  /** Takes a slot or throws TooManyInFlightError; always call the returned release. */
  acquire(tenant: Pick<Tenant, 'name' | 'maxInFlight'>): InFlightRelease {
    const current = this.counts.get(tenant.name) ?? 0;
    if (current >= tenant.maxInFlight) throw new TooManyInFlightError(tenant.maxInFlight);
    this.counts.set(tenant.name, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.counts.get(tenant.name) ?? 1) - 1;
      if (now > 0) this.counts.set(tenant.name, now);
      else this.counts.delete(tenant.name);
    };
  }

  inFlight(tenantName: string): number {
    return this.counts.get(tenantName) ?? 0;
  }
}
