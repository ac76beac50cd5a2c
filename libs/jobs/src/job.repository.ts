import { createHash } from 'node:crypto';
import { waitForReplicas, type RedisClient, type ReplicaAck } from '@mesh/config';
import {
  decodeItems,
  decodeResults,
  encodeItems,
  encodeResults,
  type ChunkResults,
} from './chunk.codec';
import { JobQuotaLedger } from './job-quota-ledger';
import { JobKeys } from './job.keys';
import { TRANSITION, WRITE_CHUNK_RESULTS } from './job-scripts';
import {
  isJobState,
  TERMINAL_STATES,
  type ItemResult,
  type JobItem,
  type JobRecord,
  type JobState,
} from './job.types';

export interface JobRepositoryOptions {
  keyPrefix: string;
  /** How long a job, its inputs and results are kept (seconds). */
  retentionSeconds: number;
  /**
   * Replicas that must hold a chunk's results before `writeResults` returns (none when absent):
   * the chunk then completes in the queue only once its results survive a failover.
   */
  replicaAck?: ReplicaAck;
}

export interface ListOptions {
  /** Absent: every tenant (admin). */
  tenant?: string;
  state?: JobState;
  limit: number;
}

const NON_TERMINAL: JobState[] = ['queued', 'running', 'waiting_for_version'];

/**
 * The job store in Redis: one hash per job (record and counters), one string per chunk of
 * inputs and of results (compact encoding, see chunk.codec), per-tenant indexes, and the
 * idempotency keys. Everything expires after the retention period; inputs are deleted as
 * soon as the job has finished, since results carry the item ids.
 */
export class JobRepository {
  private readonly keys: JobKeys;
  /** The tenants' quota reservations; released here when a job ends or its chunks complete. */
  readonly quota: JobQuotaLedger;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: JobRepositoryOptions,
  ) {
    this.keys = new JobKeys(options.keyPrefix);
    this.quota = new JobQuotaLedger(redis, options);
  }

  /** Stores one chunk of an upload; invisible until `commit`. */
  async writeItems(jobId: string, chunk: number, items: readonly JobItem[]): Promise<void> {
    await this.redis.set(
      this.keys.items(jobId, chunk),
      encodeItems(items),
      'EX',
      this.options.retentionSeconds,
    );
  }

  /** Removes the inputs of an upload that failed before commit. */
  async discard(jobId: string, chunks: number): Promise<void> {
    for (let start = 0; start < chunks; start += 500) {
      const batch: string[] = [];
      for (let c = start; c < Math.min(chunks, start + 500); c++) {
        batch.push(this.keys.items(jobId, c), this.keys.results(jobId, c));
      }
      if (batch.length > 0) await this.redis.del(...batch);
    }
    await this.redis.del(this.keys.meta(jobId), this.keys.chunkStats(jobId));
  }

  /** Makes a fully uploaded job visible: record and indexes. */
  async commit(record: JobRecord): Promise<void> {
    const ttl = this.options.retentionSeconds;
    await this.redis
      .multi()
      .hset(this.keys.meta(record.id), toHash(record))
      .expire(this.keys.meta(record.id), ttl)
      .exec();
    await this.redis
      .multi()
      .zadd(this.keys.byTenant(record.tenant), record.createdAt, record.id)
      .zadd(this.keys.all(), record.createdAt, record.id)
      .exec();
  }

  async get(jobId: string): Promise<JobRecord | undefined> {
    const hash = await this.redis.hgetall(this.keys.meta(jobId));
    return fromHash(jobId, hash);
  }

  async readItems(jobId: string, chunk: number): Promise<JobItem[] | undefined> {
    const raw = await this.redis.get(this.keys.items(jobId, chunk));
    return raw === null ? undefined : decodeItems(raw);
  }

  /**
   * Idempotent per chunk; returns true on its first write, which also gives the chunk's items
   * back to the tenant's queued-items quota (a replacement gives back nothing).
   */
  async writeResults(
    jobId: string,
    chunk: number,
    items: readonly JobItem[],
    results: readonly ItemResult[],
  ): Promise<boolean> {
    const failed = results.filter((r) => r.kind === 'error').length;
    const [first, tenant] = (await this.redis.eval(
      WRITE_CHUNK_RESULTS,
      4,
      this.keys.meta(jobId),
      this.keys.chunkStats(jobId),
      this.keys.results(jobId, chunk),
      this.keys.changes(jobId),
      String(chunk),
      String(results.length - failed),
      String(failed),
      encodeResults(results, items),
      String(this.options.retentionSeconds),
    )) as [number, string];
    if (first === 1 && tenant !== '') await this.quota.releaseItems(tenant, jobId, results.length);
    // Also when the results were there already: a retry after a failed wait waits again.
    if (this.options.replicaAck) {
      await waitForReplicas(this.redis, [this.keys.results(jobId, chunk)], this.options.replicaAck);
    }
    return first === 1;
  }

  async readResults(jobId: string, chunk: number): Promise<ChunkResults | undefined> {
    const raw = await this.redis.get(this.keys.results(jobId, chunk));
    return raw === null ? undefined : decodeResults(raw);
  }

  /** queued / waiting_for_version → running (startedAt set once). */
  markRunning(jobId: string, now: number): Promise<JobState | undefined> {
    return this.transition(jobId, 'running', '', `startedAt=${now}`, [
      'queued',
      'waiting_for_version',
    ]);
  }

  /** queued / running → waiting_for_version with the reason (also refreshed while waiting). */
  markWaiting(jobId: string, reason: string): Promise<JobState | undefined> {
    return this.transition(jobId, 'waiting_for_version', reason, '', NON_TERMINAL);
  }

  /**
   * Ends a job (completed, failed or cancelled) unless it already ended; frees its quota and
   * its inputs. Returns the state after the call.
   */
  async finish(
    jobId: string,
    state: 'completed' | 'failed' | 'cancelled',
    now: number,
    reason = '',
  ): Promise<JobState | undefined> {
    const after = await this.transition(jobId, state, reason, `finishedAt=${now}`, NON_TERMINAL);
    const record = await this.get(jobId);
    if (record && TERMINAL_STATES.has(record.state)) {
      await this.quota.release(record.tenant, jobId);
      const inputs: string[] = [];
      for (let c = 0; c < record.chunks; c++) inputs.push(this.keys.items(jobId, c));
      for (let i = 0; i < inputs.length; i += 500) {
        await this.redis.del(...inputs.slice(i, i + 500));
      }
    }
    return after;
  }

  /** True when the job's record is gone (expired, never committed) or it has ended. */
  async isOver(jobId: string): Promise<boolean> {
    const state = await this.redis.hget(this.keys.meta(jobId), 'state');
    return !isJobState(state) || TERMINAL_STATES.has(state);
  }

  /** Newest first. Index entries past the retention period are trimmed on the way. */
  async list(options: ListOptions): Promise<JobRecord[]> {
    const index =
      options.tenant === undefined ? this.keys.all() : this.keys.byTenant(options.tenant);
    const horizon = Date.now() - this.options.retentionSeconds * 1000;
    await this.redis.zremrangebyscore(index, '-inf', `(${horizon}`);
    const out: JobRecord[] = [];
    const page = 200;
    for (let start = 0; out.length < options.limit; start += page) {
      const ids = await this.redis.zrevrange(index, start, start + page - 1);
      if (ids.length === 0) break;
      const records = await Promise.all(ids.map((id) => this.get(id)));
      for (const r of records) {
        if (r && (options.state === undefined || r.state === options.state)) out.push(r);
        if (out.length >= options.limit) break;
      }
    }
    return out;
  }

  /** The job id an idempotency key already names for this tenant, if any. */
  async idempotentJob(tenant: string, key: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.idempotency(tenant, hashKey(key)))) ?? undefined;
  }

  /** Binds the key to `jobId` unless it is bound already; returns the bound job id. */
  async claimIdempotency(tenant: string, key: string, jobId: string): Promise<string> {
    const k = this.keys.idempotency(tenant, hashKey(key));
    const set = await this.redis.set(k, jobId, 'EX', this.options.retentionSeconds, 'NX');
    if (set === 'OK') return jobId;
    return (await this.redis.get(k)) ?? jobId;
  }

  private async transition(
    jobId: string,
    to: JobState,
    reason: string,
    stamp: string,
    from: readonly JobState[],
  ): Promise<JobState | undefined> {
    const after = await this.redis.eval(
      TRANSITION,
      2,
      this.keys.meta(jobId),
      this.keys.changes(jobId),
      to,
      reason,
      stamp,
      ...from,
    );
    return isJobState(after) ? after : undefined;
  }
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

function toHash(r: JobRecord): Record<string, string> {
  const out: Record<string, string> = {
    tenant: r.tenant,
    task: r.task,
    model: r.model,
    version: String(r.version),
    pipeline: r.pipeline,
    state: r.state,
    total: String(r.total),
    chunkSize: String(r.chunkSize),
    chunks: String(r.chunks),
    processed: String(r.processed),
    succeeded: String(r.succeeded),
    failedItems: String(r.failedItems),
    createdAt: String(r.createdAt),
  };
  if (r.reason !== undefined) out.reason = r.reason;
  if (r.startedAt !== undefined) out.startedAt = String(r.startedAt);
  if (r.finishedAt !== undefined) out.finishedAt = String(r.finishedAt);
  if (r.traceparent !== undefined) out.traceparent = r.traceparent;
  return out;
}

function fromHash(id: string, h: Record<string, string>): JobRecord | undefined {
  if (!h.state || !isJobState(h.state)) return undefined;
  const num = (v: string | undefined) => Number(v ?? 0);
  const record: JobRecord = {
    id,
    tenant: h.tenant ?? '',
    task: h.task ?? '',
    model: h.model ?? '',
    version: num(h.version),
    pipeline: h.pipeline ?? '',
    state: h.state,
    total: num(h.total),
    chunkSize: num(h.chunkSize),
    chunks: num(h.chunks),
    processed: num(h.processed),
    succeeded: num(h.succeeded),
    failedItems: num(h.failedItems),
    createdAt: num(h.createdAt),
  };
  if (h.reason) record.reason = h.reason;
  if (h.startedAt) record.startedAt = num(h.startedAt);
  if (h.finishedAt) record.finishedAt = num(h.finishedAt);
  if (h.traceparent) record.traceparent = h.traceparent;
  return record;
}
