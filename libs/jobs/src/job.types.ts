/** Lifecycle of a bulk job. `completed`, `failed` and `cancelled` are terminal. */
export const JOB_STATES = [
  'queued',
  'running',
  'waiting_for_version',
  'completed',
  'failed',
  'cancelled',
] as const;

export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<JobState> = new Set(['completed', 'failed', 'cancelled']);

export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}

/** A caller-supplied item id: echoed on its result line. */
export type ItemId = string | number;

/** One input item of a job. */
export interface JobItem {
  id?: ItemId;
  text: string;
  textPair?: string;
}

/** The (model, version, pipeline) a job is pinned to at submission; every item runs on it. */
export interface PinnedVersion {
  model: string;
  version: number;
  /** `pipeline@version`. */
  pipeline: string;
}

/** Everything stored about a job except its items and results. */
export interface JobRecord extends PinnedVersion {
  id: string;
  tenant: string;
  task: string;
  state: JobState;
  /** Why the job waits or failed. */
  reason?: string;
  total: number;
  chunkSize: number;
  chunks: number;
  processed: number;
  succeeded: number;
  failedItems: number;
  /** Epoch milliseconds. */
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /**
   * W3C `traceparent` of the span that accepted the job (set only when the router traced the
   * submit): the worker's chunk spans continue it, so a job is one trace.
   */
  traceparent?: string;
}

/** An item-level error on a result line. */
export interface ItemError {
  code: string;
  message: string;
}

export interface LabelScoreResult {
  label: string;
  score: number;
}

/** The outcome of one item, as the worker writes it. */
export type ItemResult =
  | { kind: 'classification'; label: string; score: number; scores: LabelScoreResult[] }
  | { kind: 'embedding'; embedding: Float32Array | number[] }
  | { kind: 'error'; error: ItemError };
