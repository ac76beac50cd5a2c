/**
 * Redis names of the job store, all under `REDIS_KEY_PREFIX`. One job's keys share the
 * `{job:<id>}` hash tag, so its scripts touch one Redis Cluster slot; the per-tenant indexes
 * share `{jobs}`.
 */
export class JobKeys {
  constructor(private readonly prefix: string) {}

  meta(jobId: string): string {
    return `${this.prefix}:{job:${jobId}}:meta`;
  }

  /** chunk index → "succeeded,failed" of its written result. */
  chunkStats(jobId: string): string {
    return `${this.prefix}:{job:${jobId}}:chunks`;
  }

  items(jobId: string, chunk: number): string {
    return `${this.prefix}:{job:${jobId}}:in:${chunk}`;
  }

  results(jobId: string, chunk: number): string {
    return `${this.prefix}:{job:${jobId}}:out:${chunk}`;
  }

  /**
   * Sharded pub/sub channel of a job's change notices (chunk written, state moved): SPUBLISH /
   * SSUBSCRIBE. Its `{job:<id>}` tag puts it in the slot of the job's keys, so the job's
   * scripts publish on it and a Cluster serves it from the shard that holds the job.
   */
  changes(jobId: string): string {
    return `${this.prefix}:{job:${jobId}}:changes`;
  }

  /** Pattern matching every key of every job under this prefix (meta, chunks, items, results). */
  jobPattern(): string {
    return `${this.prefix}:{job:*}:*`;
  }

  /** Pattern matching the shared `{jobs}` keys: tenant and admin indexes, quotas, idempotency. */
  indexPattern(): string {
    return `${this.prefix}:{jobs}:*`;
  }

  /** Sorted set of a tenant's job ids by creation time. */
  byTenant(tenant: string): string {
    return `${this.prefix}:{jobs}:tenant:${tenant}`;
  }

  /** Sorted set of every job id by creation time (admin listing). */
  all(): string {
    return `${this.prefix}:{jobs}:all`;
  }

  /** Hash of a tenant's quota reservations: unfinished job id → items not yet processed. */
  quotaItems(tenant: string): string {
    return `${this.prefix}:{jobs}:quota:${tenant}:items`;
  }

  /** Hash: job id → when its reservation last moved (epoch ms), to find abandoned uploads. */
  quotaTouched(tenant: string): string {
    return `${this.prefix}:{jobs}:quota:${tenant}:touched`;
  }

  idempotency(tenant: string, keyHash: string): string {
    return `${this.prefix}:{jobs}:idem:${tenant}:${keyHash}`;
  }
}
