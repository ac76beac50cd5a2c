import { intBetween, positiveInt, type RedisMode, type ReplicaAck } from '@mesh/config';
import type { RetryPolicy } from './job-queue-contracts';

/**
 * Environment variables of bulk jobs that the router (producer) and the worker (consumer)
 * must agree on; both apps spread this into their schema.
 */
export const jobsEnv = {
  /** How long a job, its inputs and its results are kept. */
  JOBS_RETENTION_SECONDS: positiveInt(24 * 3600),
  /** Attempts per chunk (and per job parent) before it fails for good. */
  JOBS_ATTEMPTS: positiveInt(5, 100),
  /** First retry delay; doubles each attempt. */
  JOBS_BACKOFF_MS: positiveInt(1000),
  /**
   * Replicas that must hold a job's writes before they count (Redis WAIT): the router's
   * submission (keys and queue entry) before its 202, and the worker's chunk results before the
   * chunk completes, so neither is lost with its primary. Unset: 1 with Redis Cluster or
   * Sentinel (they run replicas), 0 with a standalone Redis.
   */
  JOBS_ACK_REPLICAS: intBetween(0, 16).optional(),
  /** Longest wait for them: past it a submission answers 503, a chunk is retried. */
  JOBS_ACK_TIMEOUT_MS: positiveInt(1000, 60_000),
};

/** The replica acknowledgement jobs ask for, from the settings and the Redis mode. */
export function replicaAckOf(
  config: { JOBS_ACK_REPLICAS?: number | undefined; JOBS_ACK_TIMEOUT_MS: number },
  mode: RedisMode,
): ReplicaAck {
  return {
    replicas: config.JOBS_ACK_REPLICAS ?? (mode === 'standalone' ? 0 : 1),
    timeoutMs: config.JOBS_ACK_TIMEOUT_MS,
  };
}

export function retryPolicyOf(config: {
  JOBS_ATTEMPTS: number;
  JOBS_BACKOFF_MS: number;
}): RetryPolicy {
  return { attempts: config.JOBS_ATTEMPTS, backoffMs: config.JOBS_BACKOFF_MS };
}
