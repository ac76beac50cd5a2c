import type { ChannelOptions } from '@grpc/grpc-js';
import type { RetryOptions } from './retry-policy';
import type { Tensor } from './tensor.types';

export type InferParameterValue = boolean | number | string;

/** One inference through the pool, in the mesh's own types. */
export interface InferCall {
  model: string;
  /** Exact version to run; empty/undefined lets the backend pick (latest). */
  version?: string;
  inputs: readonly Tensor[];
  /** Output names to return; empty/undefined returns every output. */
  outputs?: readonly string[];
  /**
   * Request parameters passed to the backend as-is. Triton reads `priority`
   * (1 = highest) and `timeout` (queue timeout, microseconds).
   */
  parameters?: { priority?: number; timeout?: number } & Record<string, InferParameterValue>;
  /** gRPC metadata to forward, e.g. `x-request-id`, `traceparent`. */
  metadata?: Readonly<Record<string, string>>;
  /** Request id echoed by the backend. */
  id?: string;
  /** Overall budget for the call including retries; default from the pool. */
  deadlineMs?: number;
  /** The caller gave up: the RPC in flight is cancelled and no retry starts. */
  signal?: AbortSignal;
  /** Restrict selection to these `host:port` backends (e.g. those verified to serve the right bytes). */
  backends?: readonly string[];
}

export interface InferResult {
  model: string;
  version: string;
  id: string;
  outputs: Tensor[];
  /** `host:port` of the backend that answered. */
  backend: string;
  /** 1 when the first attempt succeeded. */
  attempts: number;
}

export type CircuitStateName = 'closed' | 'open' | 'half-open' | 'isolated';

export interface BackendStatus {
  address: string;
  /** Last ServerReady answer was true. */
  ready: boolean;
  circuit: CircuitStateName;
  inFlight: number;
  /** `model@version` entries this backend reported READY. */
  models: string[];
  lastError?: string;
  lastCheckedAt?: number;
}

export interface ReadyModel {
  model: string;
  version: string;
  backends: string[];
}

export interface TlsOptions {
  /** PEM file of the CA that signed the backends' certificates. */
  caFile?: string;
  /** Client certificate and key (PEM) for mutual TLS. */
  certFile?: string;
  keyFile?: string;
}

export interface BreakerOptions {
  /** Consecutive backend faults (UNAVAILABLE / DEADLINE_EXCEEDED) that open the circuit. */
  consecutiveFailures: number;
  /** How long an open circuit waits before letting one trial call through. */
  halfOpenAfterMs: number;
}

export interface KServePoolOptions {
  /** `host:port` gRPC backends (KSERVE_ENDPOINTS). */
  endpoints: readonly string[];
  /** grpc max send/receive message length; 64 MiB by default. */
  maxMessageBytes?: number;
  /** Default overall deadline of an inference call. */
  deadlineMs?: number;
  /** Deadline of one health/discovery RPC. */
  probeDeadlineMs?: number;
  /** Period of ServerReady + RepositoryIndex per backend. */
  healthIntervalMs?: number;
  retry?: Partial<RetryOptions>;
  breaker?: Partial<BreakerOptions>;
  /** TLS for production backends; plaintext when absent. */
  tls?: TlsOptions;
  /**
   * An inference alone on its backend rides one long-lived ModelStreamInfer call instead of a
   * unary call of its own (KSERVE_LONE_STREAM; default true). See LoneInferStream.
   */
  loneStream?: boolean;
  /** Extra grpc-js channel options (merged over the pool's). */
  channelOptions?: ChannelOptions;
  /** Logs discovery changes and breaker transitions. */
  log?: (level: 'info' | 'warn', event: string, fields: Record<string, unknown>) => void;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
