import type { status as GrpcStatus } from '@grpc/grpc-js';
import {
  BACKEND_GRPC_STATUS,
  ERROR_TABLE,
  isErrorCode,
  RETRYABLE_GRPC_STATUSES,
  type ErrorCode,
} from './error-table';

/** The JSON error body, the same shape on every HTTP endpoint of the mesh. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** A thrown value as any transport sends it: HTTP status, gRPC status and the body. */
export interface ErrorReply {
  code: ErrorCode;
  status: number;
  grpc: GrpcStatus;
  body: ErrorBody;
}

/** Fields that name internal addresses or repeat the message; never sent to callers. */
const HIDDEN_FIELDS = new Set([
  'backend',
  'backends',
  'details',
  'grpcMessage',
  'method',
  'name',
  'message',
  'stack',
  'code',
  'cause',
  'metadata',
  'statusCode',
  'status',
  'response',
  'options',
]);

/**
 * The table code of anything thrown: a domain error's own code, or a backend's gRPC status
 * (a `BACKEND_ERROR` from @mesh/kserve, or a raw grpc-js ServiceError) through
 * `BACKEND_GRPC_STATUS`; everything else is INTERNAL. Edges may refine INTERNAL with what
 * only they know (framework statuses, their store's failures).
 */
export function errorCodeOf(err: unknown): ErrorCode {
  const code = (err as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) return code;
  const grpc = backendGrpcStatusOf(err);
  if (grpc !== undefined) return BACKEND_GRPC_STATUS[grpc] ?? 'BAD_BACKEND_RESPONSE';
  return 'INTERNAL';
}

/**
 * Whether a client or worker may resend: a backend's own gRPC status decides when there is
 * one (a backend NOT_FOUND or CANCELLED is not worth another attempt), else the table.
 */
export function isRetryable(err: unknown): boolean {
  const grpc = backendGrpcStatusOf(err);
  if (grpc !== undefined) return RETRYABLE_GRPC_STATUSES.has(grpc);
  return ERROR_TABLE[errorCodeOf(err)].retryable;
}

/**
 * Status, gRPC status and `{error: {code, message, details?}}` for anything thrown. Internal
 * errors never show their message; backend failures never name the backend; details are the
 * error's own plain-data fields (issues, limits, ids).
 */
export function errorBody(err: unknown, code: ErrorCode = errorCodeOf(err)): ErrorReply {
  const { http, grpc } = ERROR_TABLE[code];
  const message =
    code === 'INTERNAL'
      ? 'internal error'
      : (backendMessageOf(err) ?? (err instanceof Error ? err.message : String(err)));
  const details = code === 'INTERNAL' ? undefined : detailsOf(err);
  return {
    code,
    status: http,
    grpc,
    body: { error: { code, message, ...(details ? { details } : {}) } },
  };
}

/** The gRPC status a backend answered, if the error carries one. */
function backendGrpcStatusOf(err: unknown): GrpcStatus | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; grpcCode?: unknown };
  if (e.code === 'BACKEND_ERROR' && typeof e.grpcCode === 'number') return e.grpcCode;
  if (typeof e.code === 'number' && 'details' in err) return e.code;
  return undefined;
}

/** A caller-safe message for backend failures (no backend addresses). */
function backendMessageOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; details?: unknown; grpcMessage?: unknown; grpcCode?: unknown };
  if (typeof e.code === 'number' && typeof e.details === 'string') return `backend: ${e.details}`;
  if (e.code === 'BACKEND_ERROR' && typeof e.grpcMessage === 'string') {
    return `backend answered ${String(e.grpcCode)}: ${e.grpcMessage}`;
  }
  if (e.code === 'BACKEND_UNAVAILABLE' && typeof e.details === 'object') {
    return 'no backend could serve the request';
  }
  return undefined;
}

/** Own fields of a domain error (task, limit, reasons, issues ...) that are plain data. */
function detailsOf(err: unknown): Record<string, unknown> | undefined {
  if (!(err instanceof Error)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (HIDDEN_FIELDS.has(key) || !isPlainData(value)) continue;
    out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function isPlainData(value: unknown, depth = 0): boolean {
  if (depth > 4) return false;
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      if (Array.isArray(value)) return value.every((v) => isPlainData(v, depth + 1));
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      return Object.values(value).every((v) => isPlainData(v, depth + 1));
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      return false;
  }
  return false;
}
