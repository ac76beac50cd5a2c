/** Wildcard used both as the default-route tenant and as "every task" in `allowedTasks`. */
export const ANY = '*';

/** Token-bucket-like admission settings for one tenant, shared by every router replica. */
export interface TenantRateLimit {
  /** Sustained requests per second. */
  requestsPerSecond: number;
  /** Requests allowed at once after an idle period (≥ requestsPerSecond). */
  burst: number;
}

export interface Tenant {
  name: string;
  /** Lower-case sha256 hex of each API key; plaintext keys are never stored. */
  keySha256: string[];
  /** Task names the tenant may call; `'*'` means all. */
  allowedTasks: string[];
  rateLimit: TenantRateLimit;
  /** Concurrent requests per router process. */
  maxInFlight: number;
  /** Bulk-job quotas; absent fields take the router's defaults. */
  jobs?: TenantJobQuota;
}

export interface TenantJobQuota {
  /** Items of unfinished jobs (not yet processed) the tenant may have at once. */
  maxQueuedItems?: number;
  /** Unfinished jobs the tenant may have at once. */
  maxConcurrentJobs?: number;
}

export interface VersionWeight {
  version: number;
  weight: number;
}

export interface ShadowConfig {
  version: number;
  /** Share of requests (0–100) also sent to the shadow version; absent means 100. */
  percent?: number;
}

export interface RouteCacheConfig {
  enabled: boolean;
  maxEntries?: number;
}

export interface Route {
  /** Tenant name, or `'*'` for the task's default route. */
  tenant: string;
  task: string;
  model: string;
  versions: VersionWeight[];
  shadow?: ShadowConfig;
  cache?: RouteCacheConfig;
}

/** The declarative content of a routing table (what `mesh.yaml` holds). */
export interface RoutingTableData {
  tenants: Tenant[];
  routes: Route[];
}

/** A routing table as stored in Redis: its content plus the epoch of the last change. */
export interface RoutingTable extends RoutingTableData {
  epoch: number;
}

export type AuditAction =
  'seed' | 'reseed' | 'route.upsert' | 'route.delete' | 'tenant.upsert' | 'tenant.delete';

/** One audited change; `before`/`after` are the changed entry (or whole table for seeds). */
export interface AuditEntry {
  epoch: number;
  who: string;
  /** ISO-8601 timestamp. */
  when: string;
  action: AuditAction;
  /** `tenant/task` for routes, tenant name for tenants, absent for whole-table actions. */
  target?: string;
  before: Route | Tenant | RoutingTableData | null;
  after: Route | Tenant | RoutingTableData | null;
}
