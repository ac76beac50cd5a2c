import type { Tenant } from '@mesh/routing';

export interface QuotaDefaults {
  maxQueuedItems: number;
  maxConcurrentJobs: number;
}

export interface EffectiveQuota {
  maxQueuedItems: number;
  maxConcurrentJobs: number;
}

/** The tenant's mesh.yaml `jobs` quota, with the router's defaults for absent fields. */
export function quotaOf(tenant: Tenant, defaults: QuotaDefaults): EffectiveQuota {
  return {
    maxQueuedItems: tenant.jobs?.maxQueuedItems ?? defaults.maxQueuedItems,
    maxConcurrentJobs: tenant.jobs?.maxConcurrentJobs ?? defaults.maxConcurrentJobs,
  };
}
