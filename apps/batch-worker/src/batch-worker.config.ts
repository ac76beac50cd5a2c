import { commonEnv, loadConfig, port, positiveInt, redisEnv, redisIssues } from '@mesh/config';
import { jobsEnv } from '@mesh/jobs';
import { kserveClientEnv, kserveClientIssues, withKServeAliases } from '@mesh/kserve';
import { z } from 'zod';

const workerEnv = {
  ...commonEnv,
  ...redisEnv,
  ...jobsEnv,
  WORKER_PORT: port(9100),
  MODEL_REPOSITORY: z.string().min(1).default('./model_repository'),
  /** The backends and how to reach them: KSERVE_ENDPOINTS, KSERVE_TLS_*, retries, breaker. */
  ...kserveClientEnv,
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

/** Names the worker read before the shared KSERVE_* set; still honoured when that one is unset. */
export const WORKER_KSERVE_ALIASES = {
  KSERVE_MAX_MESSAGE_BYTES: 'GRPC_MAX_MESSAGE_BYTES',
  KSERVE_DEADLINE_MS: 'WORKER_INFER_TIMEOUT_MS',
  KSERVE_HEALTH_INTERVAL_MS: 'WORKER_DISCOVERY_INTERVAL_MS',
} as const;

export function loadBatchWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  // Bulk batches are larger than online ones: a longer default deadline per call.
  const withAliases = withKServeAliases(env, WORKER_KSERVE_ALIASES, {
    KSERVE_DEADLINE_MS: '30000',
  });
  return loadConfig('batch-worker', workerEnv, withAliases, (c) => [
    ...redisIssues(c),
    ...kserveClientIssues(c),
  ]);
}
