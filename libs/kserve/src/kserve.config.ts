import { endpoints, pemFile, positiveInt, setTogether, type ConfigIssue } from '@mesh/config';
import { z } from 'zod';
import { DEFAULT_MAX_MESSAGE_BYTES, type KServePoolOptions } from './kserve-pool.types';

/**
 * Environment of any app that talks to KServe backends; spread into the
 * app's `loadConfig` shape, then turn into pool options with
 * `kservePoolOptionsFromEnv`.
 */
export const kserveClientEnv = {
  KSERVE_ENDPOINTS: endpoints,
  /** grpc max send/receive message size (bytes); 64 MiB as on the host. */
  KSERVE_MAX_MESSAGE_BYTES: positiveInt(DEFAULT_MAX_MESSAGE_BYTES, 2 ** 31 - 1),
  /** Default overall deadline of one inference call, retries included. */
  KSERVE_DEADLINE_MS: positiveInt(10_000),
  KSERVE_PROBE_DEADLINE_MS: positiveInt(1_000),
  KSERVE_HEALTH_INTERVAL_MS: positiveInt(2_000),
  /** Attempts per call including the first (1 = no retries). */
  KSERVE_RETRY_ATTEMPTS: positiveInt(3, 10),
  KSERVE_RETRY_BASE_MS: positiveInt(25),
  KSERVE_RETRY_MAX_MS: positiveInt(1_000),
  KSERVE_BREAKER_FAILURES: positiveInt(5),
  KSERVE_BREAKER_HALF_OPEN_MS: positiveInt(5_000),
  /**
   * `on`: an inference alone on its backend rides one long-lived ModelStreamInfer call (no call
   * set-up per request); `off`: a unary ModelInfer each.
   */
  KSERVE_LONE_STREAM: z.enum(['on', 'off']).default('on'),
  /** PEM files; setting any switches the channels to TLS (cert + key for mutual TLS). */
  KSERVE_TLS_CA: pemFile,
  KSERVE_TLS_CERT: pemFile,
  KSERVE_TLS_KEY: pemFile,
};

/** Problems spanning KSERVE_* variables, for `loadConfig`'s checks. */
export function kserveClientIssues(config: Readonly<Record<string, unknown>>): ConfigIssue[] {
  return setTogether(config, 'KSERVE_TLS_CERT', 'KSERVE_TLS_KEY');
}

export type KServeClientEnv = z.infer<z.ZodObject<typeof kserveClientEnv>>;

export function kservePoolOptionsFromEnv(env: KServeClientEnv): KServePoolOptions {
  const opts: KServePoolOptions = {
    endpoints: env.KSERVE_ENDPOINTS,
    maxMessageBytes: env.KSERVE_MAX_MESSAGE_BYTES,
    deadlineMs: env.KSERVE_DEADLINE_MS,
    probeDeadlineMs: env.KSERVE_PROBE_DEADLINE_MS,
    healthIntervalMs: env.KSERVE_HEALTH_INTERVAL_MS,
    loneStream: env.KSERVE_LONE_STREAM === 'on',
    retry: {
      maxAttempts: env.KSERVE_RETRY_ATTEMPTS,
      baseDelayMs: env.KSERVE_RETRY_BASE_MS,
      maxDelayMs: env.KSERVE_RETRY_MAX_MS,
    },
    breaker: {
      consecutiveFailures: env.KSERVE_BREAKER_FAILURES,
      halfOpenAfterMs: env.KSERVE_BREAKER_HALF_OPEN_MS,
    },
  };
  if (env.KSERVE_TLS_CA || env.KSERVE_TLS_CERT || env.KSERVE_TLS_KEY) {
    opts.tls = {
      caFile: env.KSERVE_TLS_CA,
      certFile: env.KSERVE_TLS_CERT,
      keyFile: env.KSERVE_TLS_KEY,
    };
  }
  return opts;
}
