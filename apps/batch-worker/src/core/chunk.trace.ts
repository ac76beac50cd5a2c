import {
  endSpan,
  SpanKind,
  startGrpcClientSpan,
  startRemoteChildSpan,
  tracingEnabled,
  type Span,
} from '@mesh/telemetry';
import type { JobRecord } from '@mesh/jobs';
import type { PinnedModel } from './chunk-inference';

/**
 * The worker's spans (docs/observability.md, "Tracing"). A job carries the `traceparent` of the
 * span that accepted it (set by the router only when it traced the submit), and every span here
 * continues it: the job is one trace from submit to its last chunk. A job without one, or a
 * worker with tracing off, records nothing and allocates nothing.
 */

/** The job's trace context when this worker traces and the job has one; undefined otherwise. */
export function jobTraceOf(record: Pick<JobRecord, 'traceparent'>): string | undefined {
  return tracingEnabled() ? record.traceparent : undefined;
}

/** One attempt at one chunk: a consumer span, child of the job's submit span. */
export function startChunkSpan(
  traceparent: string,
  record: JobRecord,
  chunk: number,
  attempt: number,
): Span {
  return startRemoteChildSpan('bulk.chunk', traceparent, {
    kind: SpanKind.CONSUMER,
    attributes: {
      'mesh.job.id': record.id,
      'mesh.chunk.index': chunk,
      'mesh.chunk.attempt': attempt,
      'mesh.tenant': record.tenant,
      'mesh.task': record.task,
      'mesh.model': record.model,
      'mesh.version': record.version,
    },
  });
}

/**
 * Ends a chunk's span. Written and failed chunks take `endSpan`'s outcome (error status unless
 * ok); a chunk that was skipped (its job ended) or parked (waiting for its version) did nothing
 * wrong, so it keeps an unset status and says why in `mesh.outcome`.
 */
export function endChunkSpan(span: Span, outcome: string, message?: string): void {
  if (outcome === 'skipped' || outcome === 'waiting') {
    span.setAttribute('mesh.outcome', outcome);
    span.end();
    return;
  }
  endSpan(span, outcome, message);
}

/** A parked chunk: why it waits, and whether its version's load was asked of the placer. */
export function recordParked(span: Span, reason: string, coldStart: boolean): void {
  span.addEvent('bulk.chunk.parked', {
    'mesh.wait.reason': reason,
    'mesh.cold_start': coldStart,
  });
}

/**
 * The client span of one ModelInfer call of a chunk; its context is the `traceparent` the
 * backend receives, so the host's spans join the job's trace. Each call carries rows of one
 * chunk only (the worker merges nothing across chunks), so plain parent/child is exact here.
 */
export function startBackendCallSpan(chunk: Span, version: PinnedModel, rows: number): Span {
  return startGrpcClientSpan('inference.GRPCInferenceService', 'ModelInfer', chunk, {
    attributes: {
      'mesh.model': version.model,
      'mesh.version': version.version,
      'mesh.batch.rows': rows,
    },
  });
}

/** The job's completion (the flow's parent ran): child of the submit span, like its chunks. */
export function recordJobFinished(
  traceparent: string,
  record: JobRecord,
  startTime: number,
  endTime: number,
): void {
  const span = startRemoteChildSpan('bulk.job.finish', traceparent, {
    kind: SpanKind.CONSUMER,
    startTime,
    attributes: {
      'mesh.job.id': record.id,
      'mesh.job.state': record.state,
      'mesh.job.items': record.total,
      'mesh.job.chunks': record.chunks,
      'mesh.items.succeeded': record.succeeded,
      'mesh.items.failed': record.failedItems,
      'mesh.tenant': record.tenant,
      'mesh.model': record.model,
      'mesh.version': record.version,
    },
  });
  endSpan(span, 'ok', undefined, endTime);
}
