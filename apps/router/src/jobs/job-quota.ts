import { JobQuotaExceededError, type JobQuotaLedger } from '@mesh/jobs';
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

/** How long a reservation may sit still before a dead upload's leftovers are swept. */
const ABANDONED_UPLOAD_MS = 10 * 60_000;

/**
 * One submission's hold on its tenant's quota, taken atomically in Redis (JobQuotaLedger):
 * a job slot before the upload is read, then its items chunk by chunk as they are stored,
 * so concurrent submits can never pass `maxConcurrentJobs` or `maxQueuedItems` together.
 * `release` gives everything back when the submission does not become a job.
 */
export class QuotaHold {
  private constructor(
    private readonly ledger: JobQuotaLedger,
    private readonly tenant: string,
    private readonly jobId: string,
    private readonly quota: EffectiveQuota,
  ) {}

  static async take(
    ledger: JobQuotaLedger,
    isOver: (jobId: string) => Promise<boolean>,
    tenant: Tenant,
    jobId: string,
    defaults: QuotaDefaults,
  ): Promise<QuotaHold> {
    const quota = quotaOf(tenant, defaults);
    await ledger.sweep(tenant.name, ABANDONED_UPLOAD_MS, isOver);
    const slot = await ledger.reserveJob(tenant.name, jobId, quota.maxConcurrentJobs);
    if (!slot.granted) {
      throw new JobQuotaExceededError(
        'maxConcurrentJobs',
        quota.maxConcurrentJobs,
        `tenant '${tenant.name}' already has ${slot.held} unfinished jobs (limit ${quota.maxConcurrentJobs})`,
      );
    }
    return new QuotaHold(ledger, tenant.name, jobId, quota);
  }

  /** Reserves the next `items` of the upload, or throws 429 naming what is left. */
  async items(items: number): Promise<void> {
    const r = await this.ledger.reserveItems(
      this.tenant,
      this.jobId,
      items,
      this.quota.maxQueuedItems,
    );
    if (r.granted) return;
    throw new JobQuotaExceededError(
      'maxQueuedItems',
      this.quota.maxQueuedItems,
      r.lost
        ? `the job slot of tenant '${this.tenant}' was released during the upload`
        : `tenant '${this.tenant}' may have at most ${this.quota.maxQueuedItems} queued items; ${Math.max(0, this.quota.maxQueuedItems - r.held)} remain`,
    );
  }

  release(): Promise<void> {
    return this.ledger.release(this.tenant, this.jobId);
  }
}
