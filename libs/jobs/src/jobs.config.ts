import { positiveInt } from '@mesh/config';
import type { RetryPolicy } from './job-queue.contracts';

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
};

export function retryPolicyOf(config: {
  JOBS_ATTEMPTS: number;
  JOBS_BACKOFF_MS: number;
}): RetryPolicy {
  return { attempts: config.JOBS_ATTEMPTS, backoffMs: config.JOBS_BACKOFF_MS };
}
