import { grpcCallAttributes, SpanKind, startRemoteChildSpan, type Span } from '@mesh/telemetry';
import type { SubmittedJob } from './job-commands';

/**
 * The job submit's span (docs/observability.md, "Tracing"): the root of the job's trace in the
 * mesh. Its `traceparent` is stored with the job, so the worker's chunk spans are its children
 * however much later they run. Created only behind `tracingEnabled()`.
 */
export function startSubmitSpan(
  transport: 'http' | 'grpc',
  traceparent: string | undefined,
  startTime?: number,
): Span {
  return startRemoteChildSpan(
    transport === 'grpc' ? 'mesh.v1.Jobs/SubmitJob' : 'POST /v1/jobs',
    traceparent,
    {
      kind: SpanKind.SERVER,
      attributes:
        transport === 'grpc'
          ? grpcCallAttributes('mesh.v1.Jobs', 'SubmitJob')
          : { 'http.request.method': 'POST', 'http.route': '/v1/jobs' },
      ...(startTime !== undefined ? { startTime } : {}),
    },
  );
}

/** What the submit learnt before it was refused or accepted: set as soon as it is known. */
export function recordSubmitCaller(span: Span | undefined, tenant: string, task: string): void {
  span?.setAttributes({ 'mesh.tenant': tenant, 'mesh.task': task });
}

/** The accepted (or replayed) job: its id, pinned version and size. */
export function recordSubmittedJob(
  span: Span | undefined,
  job: SubmittedJob,
  replayed: boolean,
): void {
  span?.setAttributes({
    'mesh.job.id': job.jobId,
    'mesh.model': job.model,
    'mesh.version': job.version,
    'mesh.job.items': job.total,
    ...(replayed ? { 'mesh.job.replayed': true } : {}),
  });
}
