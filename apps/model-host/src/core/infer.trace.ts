import {
  endSpan,
  SpanKind,
  spanContextOf,
  startRemoteChildSpan,
  tracingEnabled,
  type Span,
} from '@mesh/telemetry';
import type { HostCall } from './host-access-log';
import { toHostError } from './model-host.errors';

/**
 * The host's server span of one inference, the same for gRPC ModelInfer, each request of a
 * ModelStreamInfer and HTTP infer: only while tracing is on and the caller sent a valid
 * `traceparent` (the host never starts a trace of its own, so untraced traffic costs nothing).
 * Its `queue.wait` and `batch.execute` children come from the batcher (ModelVersionRuntime).
 */
export function startInferSpan(
  name: string,
  traceparent: string | undefined,
  call: HostCall,
  attributes: Record<string, string>,
): Span | undefined {
  if (!tracingEnabled() || spanContextOf(traceparent) === undefined) return undefined;
  return startRemoteChildSpan(name, traceparent, {
    kind: SpanKind.SERVER,
    attributes: {
      ...attributes,
      'mesh.model': call.model,
      'mesh.version': call.version,
      'mesh.request_id': call.requestId,
    },
  });
}

/**
 * Ends the span once the inference settled: `ok`, or the host's error code (CANCELLED when the
 * caller left), with `status` naming the transport's own status for that code.
 */
export async function endInferSpan<T>(
  span: Span,
  inference: Promise<T>,
  signal: AbortSignal,
  status: (code: ReturnType<typeof toHostError>['code']) => [string, number],
): Promise<T> {
  try {
    const res = await inference;
    endSpan(span, 'ok');
    return res;
  } catch (err: unknown) {
    const e = toHostError(err);
    const [attribute, value] = status(e.code);
    span.setAttribute(attribute, value);
    endSpan(span, signal.aborted ? 'CANCELLED' : e.code, e.message);
    throw err;
  }
}
