import { createHash } from 'node:crypto';
import type { Route, RoutingTableData, Tenant } from '../routing.types';

/** The stored form of a fixture key (sha256 hex, as the tenancy lib hashes keys). */
export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Tenant `acme` (key `acme-key`), allowed task `intent`, 10 rps (burst 20), 4 in flight. */
export function acmeTenant(over: Partial<Tenant> = {}): Tenant {
  return {
    name: 'acme',
    keySha256: [sha256Hex('acme-key')],
    allowedTasks: ['intent'],
    rateLimit: { requestsPerSecond: 10, burst: 20 },
    maxInFlight: 4,
    ...over,
  };
}

/**
 * A canary split, 90 % to version 1 and 10 % to version 2; by default every tenant's (`*`)
 * `intent` to `intent-zh`.
 */
export function canaryRoute(over: Partial<Route> = {}): Route {
  return {
    tenant: '*',
    task: 'intent',
    model: 'intent-zh',
    versions: [
      { version: 1, weight: 90 },
      { version: 2, weight: 10 },
    ],
    ...over,
  };
}

/** A table of `acme` and the `intent` route, all of it to version 3: what the stores seed. */
export function seededTable(): RoutingTableData {
  return {
    tenants: [acmeTenant()],
    routes: [canaryRoute({ versions: [{ version: 3, weight: 1 }] })],
  };
}
