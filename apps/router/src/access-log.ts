import { SampledAccessLog } from '@mesh/telemetry';

/** One line per request, written when the answer has been sent. */
export interface AccessEntry {
  requestId: string;
  transport: 'http' | 'grpc';
  /** HTTP method (`POST`), or the gRPC method name (`Predict`). */
  method: string;
  /** HTTP only: the route as declared (`/v1/jobs/:id`), else the path without its query. */
  route?: string;
  tenant?: string;
  task?: string;
  model?: string;
  version?: number;
  /** HTTP status, or the gRPC status code. */
  status: number;
  /** True when the answer is an error (4xx/5xx, non-OK gRPC). */
  failed: boolean;
  /** The mesh error code the caller got (`MODEL_LOADING`, ...), for failures. */
  code?: string;
  /**
   * The W3C trace id of the request's `traceparent`, when it came with a valid one, so the
   * line can be found from the caller's trace. Absent otherwise.
   */
  traceId?: string;
  latencyMs: number;
}

/**
 * The router's access log: request id, tenant, task, model, version, status and latency per
 * request, successes sampled at `ROUTER_ACCESS_LOG_SAMPLE`.
 */
export class AccessLog extends SampledAccessLog<AccessEntry> {}

/** `version-traceid-parentid-flags` (W3C Trace Context, lower-case hex). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}/;

/**
 * The trace id of a `traceparent` header, or undefined when there is none or it is not valid
 * (version ff, an all-zero trace or parent id), as a W3C receiver would ignore it.
 */
export function traceIdOf(traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return m[2];
}

/** The `code` of an error answer's body (`{"error":{"code":...}}`), if it has one. */
export function errorCodeOf(body: unknown): string | undefined {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof text !== 'string' || !text.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
