import type { LabelScore, Prediction } from '@mesh/preprocessing';
import type { Tenant } from '@mesh/routing';
import type { Span } from '@mesh/telemetry';

/** Transport-independent facts about one call, filled in at the edge. */
export interface CallContext {
  transport: 'http' | 'grpc';
  /** Raw `authorization` header / metadata value, if any. */
  authorization: string | undefined;
  requestId: string;
  traceparent: string | undefined;
  /** `x-mesh-sticky-key`: the same key always picks the same version while weights hold. */
  stickyKey: string | undefined;
  /** When the edge received the call (`performance.now()`), for queue time and latencyMs. */
  receivedAt: number;
  /** Aborts when the caller leaves (closed connection, gRPC cancel): its backend call is cancelled. */
  signal?: AbortSignal;
  /**
   * The request's server span, only while tracing is on (the edge started it): the stages
   * below record their child spans under it, and the backend call's span carries its trace.
   */
  span?: Span;
  /** Filled in as the call is served, for the access log line. */
  served?: { tenant?: string; task?: string; model?: string; version?: number };
}

export interface PredictCommand {
  task: string;
  text: string;
  textPair?: string;
}

export interface PredictBatchCommand {
  task: string;
  texts: string[];
}

export interface TokenizeCommand {
  task: string;
  text: string;
  textPair?: string;
}

export type { LabelScore, Prediction };

export interface PredictResult {
  model: string;
  version: number;
  prediction: Prediction;
  latencyMs: number;
  /** Set when the version was resident nowhere: how long the request waited for its load. */
  coldStartMs?: number;
}

export interface PredictBatchResult {
  model: string;
  version: number;
  results: Prediction[];
  latencyMs: number;
  /** Set when the version was resident nowhere: how long the request waited for its load. */
  coldStartMs?: number;
}

export interface TokenizeOutcome {
  model: string;
  version: number;
  pipeline: string;
  tokens: string[];
  inputIds: number[];
  attentionMask: number[];
  tokenTypeIds: number[];
  truncated: boolean;
}

export interface TaskInfo {
  task: string;
  model: string;
  kind: 'classification' | 'embedding' | 'unknown';
  versions: number[];
  weightedVersions: TaskVersionInfo[];
  /** Some weighted version takes text pairs. */
  pairs: boolean;
}

/** One weighted version of a task; zeros/false when the version is not servable here. */
export interface TaskVersionInfo {
  version: number;
  weight: number;
  maxLength: number;
  hardMaxChars: number;
  pairs: boolean;
  labels: string[];
}

/** An authenticated caller. */
export interface Caller {
  tenant: Tenant;
}
