import type { RedisClient } from '@mesh/config';
import { JobKeys } from './job.keys';
import { RELEASE_ITEMS, RESERVE_ITEMS, RESERVE_JOB } from './job-scripts';

/** The outcome of a reservation: granted or not, and the tenant's reserved total after it. */
export interface Reservation {
  granted: boolean;
  /** Jobs (RESERVE_JOB) or items (RESERVE_ITEMS) the tenant holds after the call. */
  held: number;
  /** The job lost its slot before this call (released by a cancel or an expiry sweep). */
  lost?: boolean;
}

export interface QuotaLedgerOptions {
  keyPrefix: string;
  retentionSeconds: number;
}

/**
 * Per-tenant job quotas in Redis, reserved atomically: a job slot when a submission starts,
 * then its items chunk by chunk while the upload is stored (each a Lua check-and-reserve, so
 * concurrent submits can never pass a limit together). Items are given back as workers
 * process them, and the whole reservation when the job ends or its upload is refused.
 * A reservation that stopped moving and whose job is gone or finished (a router that died
 * mid-upload) is swept on the tenant's next submission.
 */
export class JobQuotaLedger {
  private readonly keys: JobKeys;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: QuotaLedgerOptions,
  ) {
    this.keys = new JobKeys(options.keyPrefix);
  }

  async reserveJob(
    tenant: string,
    jobId: string,
    maxJobs: number,
    now = Date.now(),
  ): Promise<Reservation> {
    return this.reserve(RESERVE_JOB, tenant, jobId, [maxJobs], now);
  }

  async reserveItems(
    tenant: string,
    jobId: string,
    items: number,
    maxItems: number,
    now = Date.now(),
  ): Promise<Reservation> {
    return this.reserve(RESERVE_ITEMS, tenant, jobId, [items, maxItems], now);
  }

  /** Items a worker has processed no longer count as queued. */
  async releaseItems(tenant: string, jobId: string, items: number): Promise<void> {
    await this.redis.eval(RELEASE_ITEMS, 1, this.keys.quotaItems(tenant), jobId, String(items));
  }

  /** Frees the job's slot and whatever items it still holds (job ended, upload refused). */
  async release(tenant: string, jobId: string): Promise<void> {
    await this.redis
      .multi()
      .hdel(this.keys.quotaItems(tenant), jobId)
      .hdel(this.keys.quotaTouched(tenant), jobId)
      .exec();
  }

  /** What the tenant holds now: unfinished jobs and their not-yet-processed items. */
  async held(tenant: string): Promise<{ jobs: number; items: number }> {
    const values = await this.redis.hvals(this.keys.quotaItems(tenant));
    return { jobs: values.length, items: values.reduce((sum, v) => sum + Number(v), 0) };
  }

  /**
   * Releases reservations untouched for `idleMs` whose job `isOver` (record gone or ended):
   * the leftovers of a router that died mid-upload or of a finish interrupted half-way.
   */
  async sweep(
    tenant: string,
    idleMs: number,
    isOver: (jobId: string) => Promise<boolean>,
    now = Date.now(),
  ): Promise<string[]> {
    const touched = await this.redis.hgetall(this.keys.quotaTouched(tenant));
    const idle = Object.entries(touched)
      .filter(([, at]) => now - Number(at) >= idleMs)
      .map(([id]) => id);
    const over: string[] = [];
    for (const id of idle) if (await isOver(id)) over.push(id);
    for (const id of over) await this.release(tenant, id);
    return over;
  }

  /** Runs a reserving script on the tenant's quota hashes: job id, `args`, clock, retention. */
  private async reserve(
    script: string,
    tenant: string,
    jobId: string,
    args: number[],
    now: number,
  ): Promise<Reservation> {
    return parse(
      await this.redis.eval(
        script,
        2,
        this.keys.quotaItems(tenant),
        this.keys.quotaTouched(tenant),
        jobId,
        ...args.map(String),
        String(now),
        String(this.options.retentionSeconds),
      ),
    );
  }
}

function parse(reply: unknown): Reservation {
  const [code, held] = reply as [number, number];
  return code === -1 ? { granted: false, held, lost: true } : { granted: code === 1, held };
}
