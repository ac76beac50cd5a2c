import { commonEnv, loadConfig, port, positiveInt, redisEnv, redisIssues } from '@mesh/config';
import { jobsEnv } from '@mesh/jobs';
import { kserveClientEnv, kserveClientIssues } from '@mesh/kserve';
import { z } from 'zod';

const workerEnv = {
  ...commonEnv,
  ...redisEnv,
  ...jobsEnv,
  WORKER_PORT: port(9100),
  MODEL_REPOSITORY: z.string().min(1).default('./model_repository'),
  /** The backends and how to reach them: KSERVE_ENDPOINTS, KSERVE_TLS_*, retries, breaker. */
  ...kserveClientEnv,
  /** Bulk batches are larger than online ones: a longer default deadline per call. */
  KSERVE_DEADLINE_MS: positiveInt(30_000),
  /** Chunks this process runs at once. */
  WORKER_CONCURRENCY: positiveInt(2, 64),
  /** Inference calls one chunk keeps in flight (tokenizing the next batch meanwhile). */
  WORKER_INFLIGHT_BATCHES: positiveInt(2, 16),
  /**
   * Rows per inference call (at most the model's max_batch_size): small calls keep the wait of
   * an online request behind a running bulk batch short; the host merges them when idle.
   */
  WORKER_BATCH_ROWS: positiveInt(16, 1024),
  /** BullMQ lock of a running chunk; a worker that dies loses it after this long. */
  WORKER_LOCK_MS: positiveInt(30_000),
  /** How often stalled chunks (lock lost) are looked for and put back. */
  WORKER_STALLED_INTERVAL_MS: positiveInt(30_000),
  /** Stalls a chunk may suffer before it fails for good (its items then get errors). */
  WORKER_MAX_STALLED_COUNT: positiveInt(5, 1000),
  /** How long a chunk of a job waiting for its version is parked before it looks again. */
  WORKER_VERSION_WAIT_MS: positiveInt(2000),
};

export type BatchWorkerConfig = ReturnType<typeof loadBatchWorkerConfig>;

export function loadBatchWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('batch-worker', workerEnv, env, (c) => [
    ...redisIssues(c),
    ...kserveClientIssues(c),
  ]);
}
