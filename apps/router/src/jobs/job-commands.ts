import type { JobItem, JobState } from '@mesh/jobs';
import type { Span } from '@mesh/telemetry';

/** A validated job submission, whichever transport it came by. */
export interface SubmitJobCommand {
  task: string;
  /**
   * The items as they arrive (a JSON array, an NDJSON stream, gRPC messages), read only after
   * auth, route and quota checks passed; the source must throw JobTooLargeError past `maxItems`.
   */
  items: (maxItems: number) => AsyncIterable<JobItem> | Iterable<JobItem>;
  /** Consumes and drops an upload that will not be stored (idempotent replay, early refusal). */
  discard?: () => Promise<void>;
  stickyKey?: string;
  idempotencyKey?: string;
  /** The submit's server span while tracing is on: its `traceparent` is stored with the job. */
  span?: Span;
}

export interface SubmittedJob {
  jobId: string;
  model: string;
  version: number;
  pipeline: string;
  total: number;
}

export interface ListJobsQuery {
  state?: JobState;
  limit: number;
}
