import type { JobRecord, JobState } from './job.types';

/** What `GET /v1/jobs/:id` (and gRPC GetJob) answers. Times are ISO-8601. */
export interface JobStatusView {
  id: string;
  state: JobState;
  reason?: string;
  total: number;
  processed: number;
  succeeded: number;
  failedItems: number;
  itemsPerSecond: number;
  etaSeconds: number | null;
  model: string;
  version: number;
  pipeline: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The job's trace (the submit span's trace id), when the submit was traced. */
  traceId?: string;
}

/** Rate over the job's running time so far; ETA from that rate (null before any progress). */
export function jobStatusView(r: JobRecord, now: number): JobStatusView {
  const end = r.finishedAt ?? now;
  const seconds = r.startedAt === undefined ? 0 : Math.max(0.001, (end - r.startedAt) / 1000);
  const rate = seconds > 0 ? r.processed / seconds : 0;
  const remaining = r.total - r.processed;
  const eta = r.finishedAt !== undefined || remaining <= 0 ? 0 : rate > 0 ? remaining / rate : null;
  return {
    id: r.id,
    state: r.state,
    ...(r.reason === undefined ? {} : { reason: r.reason }),
    total: r.total,
    processed: r.processed,
    succeeded: r.succeeded,
    failedItems: r.failedItems,
    itemsPerSecond: Math.round(rate * 10) / 10,
    etaSeconds: eta === null ? null : Math.round(eta),
    model: r.model,
    version: r.version,
    pipeline: r.pipeline,
    createdAt: new Date(r.createdAt).toISOString(),
    startedAt: r.startedAt === undefined ? null : new Date(r.startedAt).toISOString(),
    finishedAt: r.finishedAt === undefined ? null : new Date(r.finishedAt).toISOString(),
    ...(r.traceparent === undefined ? {} : { traceId: r.traceparent.split('-')[1] }),
  };
}
