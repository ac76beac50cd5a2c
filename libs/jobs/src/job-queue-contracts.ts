import { z } from 'zod';

/**
 * The bulk-job queue contracts in one place: queue names, job names, payload schemas and the
 * retry policy. Producers go through `chunkJobSpec` / `parentJobSpec`, so nothing can enqueue a
 * payload the worker would not accept, and the worker validates what it dequeues.
 */
export const JOB_QUEUE = 'bulk-job';
export const CHUNK_QUEUE = 'bulk-chunk';
export const JOB_NAME = 'job';
export const CHUNK_NAME = 'chunk';

/** BullMQ's highest priority number (lowest priority); 0 would mean "before every prioritized job". */
const PRIORITY_LIMIT = 2 ** 21 - 1;

export const chunkPayloadSchema = z
  .object({
    jobId: z.string().min(1),
    tenant: z.string().min(1),
    chunk: z.number().int().nonnegative(),
  })
  .strict();

export const jobPayloadSchema = z.object({ jobId: z.string().min(1), tenant: z.string() }).strict();

export type ChunkPayload = z.infer<typeof chunkPayloadSchema>;
export type JobPayload = z.infer<typeof jobPayloadSchema>;

/**
 * Every queue lives under one hash-tagged prefix, so a flow's parent and children (different
 * queues) share one Redis Cluster slot and BullMQ's multi-key scripts work there.
 */
export function bullPrefix(keyPrefix: string): string {
  return `${keyPrefix}:{bull}`;
}

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

/**
 * Chunk priority from its position in its job: chunk k of every job has priority k + 1, and
 * BullMQ runs lower numbers first (FIFO within one number). A 100-item job's only chunk
 * therefore runs before chunk 2 of any running million-item job (docs/adr/0007).
 */
export function chunkPriority(chunk: number): number {
  return Math.min(chunk + 1, PRIORITY_LIMIT);
}

/** Deterministic ids make a re-submitted flow a no-op instead of a duplicate. */
export function chunkJobId(jobId: string, chunk: number): string {
  return `${jobId}-c${chunk}`;
}

export interface QueuedJobSpec<T> {
  name: string;
  queueName: string;
  data: T;
  opts: {
    jobId: string;
    priority?: number;
    attempts: number;
    backoff: { type: 'exponential'; delay: number };
    removeOnComplete: boolean | number;
    removeOnFail: boolean | number;
    ignoreDependencyOnFailure?: boolean;
  };
}

/**
 * A job for `queueName` with its own `opts` (id, priority…) and the retries and record keeping
 * every queued job gets, chunk or parent.
 */
function queuedJob<T>(
  name: string,
  queueName: string,
  data: T,
  retry: RetryPolicy,
  opts: Pick<QueuedJobSpec<T>['opts'], 'jobId' | 'priority' | 'ignoreDependencyOnFailure'>,
): QueuedJobSpec<T> {
  return {
    name,
    queueName,
    data,
    opts: {
      ...opts,
      attempts: retry.attempts,
      backoff: { type: 'exponential', delay: retry.backoffMs },
      // Results live in the job store; BullMQ's own records are only bookkeeping.
      removeOnComplete: true,
      removeOnFail: 1000,
    },
  };
}

export function chunkJobSpec(
  payload: ChunkPayload,
  retry: RetryPolicy,
): QueuedJobSpec<ChunkPayload> {
  const data = chunkPayloadSchema.parse(payload);
  return queuedJob(CHUNK_NAME, CHUNK_QUEUE, data, retry, {
    jobId: chunkJobId(data.jobId, data.chunk),
    priority: chunkPriority(data.chunk),
    // A chunk that fails for good (e.g. stalled too often) must not hold its parent forever.
    ignoreDependencyOnFailure: true,
  });
}

export function parentJobSpec(payload: JobPayload, retry: RetryPolicy): QueuedJobSpec<JobPayload> {
  const data = jobPayloadSchema.parse(payload);
  return queuedJob(JOB_NAME, JOB_QUEUE, data, retry, { jobId: data.jobId });
}
