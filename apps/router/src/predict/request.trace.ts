import {
  endSpan,
  grpcCallAttributes,
  linkTo,
  recordChildSpan,
  SpanKind,
  startGrpcClientSpan,
  startRemoteChildSpan,
  type Span,
} from '@mesh/telemetry';
import type { ServableVersion } from '@mesh/inference';
import type { CallContext } from './predict-commands';

/**
 * The router's spans (docs/observability.md, "Tracing"). Every caller checks
 * `tracingEnabled()` (the edge) or the presence of a request span (below the edge) first: with
 * tracing off nothing here runs.
 */

/** The request's server span, continuing the caller's `traceparent` (a new trace without one). */
export function startRequestSpan(
  name: string,
  transport: CallContext['transport'],
  traceparent: string | undefined,
  startTime?: number,
): Span {
  return startRemoteChildSpan(name, traceparent, {
    kind: SpanKind.SERVER,
    attributes:
      transport === 'grpc'
        ? grpcCallAttributes('mesh.v1.Predictor', name.split('/')[1] ?? '')
        : { 'http.request.method': 'POST', 'http.route': name.split(' ')[1] },
    ...(startTime !== undefined ? { startTime } : {}),
  });
}

/**
 * Ends the request span with what was served (tenant, task, model, version, as far as the
 * request got) and the outcome the caller saw (`ok` or the error code).
 */
export function endRequestSpan(
  span: Span,
  served: CallContext['served'],
  outcome: string,
  extra: Record<string, string | number> = {},
): void {
  if (served?.tenant !== undefined) span.setAttribute('mesh.tenant', served.tenant);
  if (served?.task !== undefined) span.setAttribute('mesh.task', served.task);
  if (served?.model !== undefined) span.setAttribute('mesh.model', served.model);
  if (served?.version !== undefined) span.setAttribute('mesh.version', served.version);
  span.setAttributes(extra);
  endSpan(span, outcome);
}

/** A stage of the request that already ran (`tokenize`, `postprocess`), from its timings. */
export function recordStage(
  parent: Span | undefined,
  name: string,
  start: number,
  end: number,
  version: ServableVersion,
  attributes: Record<string, string | number | boolean> = {},
): void {
  if (!parent) return;
  recordChildSpan(name, parent, start, end, {
    'mesh.model': version.model,
    'mesh.version': version.version,
    ...attributes,
  });
}

/**
 * The client span of one ModelInfer call, child of the first request it carries and linked to
 * every request's span when several were merged into it (the coalescer). Its context is the
 * `traceparent` the host receives.
 */
export function startBackendCallSpan(
  version: ServableVersion,
  requests: readonly Span[],
  rows: number,
): Span {
  const [parent] = requests;
  return startGrpcClientSpan('inference.GRPCInferenceService', 'ModelInfer', parent!, {
    attributes: {
      'mesh.model': version.model,
      'mesh.version': version.version,
      'mesh.batch.requests': requests.length,
      'mesh.batch.rows': rows,
    },
    ...(requests.length > 1 ? { links: requests.map((s) => linkTo(s)) } : {}),
  });
}
