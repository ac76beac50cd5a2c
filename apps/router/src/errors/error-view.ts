import {
  BACKEND_GRPC_STATUS,
  ERROR_TABLE,
  isErrorCode,
  type ErrorCode,
  type ErrorMapping,
} from './error-table';

/** A thrown value, as a caller sees it on either transport. */
export interface ErrorView {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  /** Set for 429s: seconds until a retry can succeed (`Retry-After`). */
  retryAfterSeconds?: number;
  /** The same wait in milliseconds when the error knows it that precisely (rate limits). */
  retryAfterMs?: number;
  mapping: ErrorMapping;
  /** True when the error is the router's or a backend's fault (logged at error level). */
  serverFault: boolean;
}

/** The JSON error body, the same shape for every endpoint. */
export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Fastify's own request-parsing failures, which happen before any Nest handler runs. */
const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

/** Status codes of framework exceptions (Nest's NotFoundException, Fastify's parse errors). */
const HTTP_STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_JSON',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

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

/** Maps anything thrown to its domain code, message and safe details. */
export function describeError(err: unknown): ErrorView {
  const code = codeOf(err);
  const mapping = ERROR_TABLE[code];
  const serverFault = mapping.http >= 500 && code !== 'BACKEND_UNAVAILABLE';
  if (code === 'INTERNAL') {
    return { code, message: 'internal error', mapping, serverFault: true };
  }
  if (code === 'STORE_UNAVAILABLE') {
    // Says what is down, never the client library's wording; worth a retry a little later.
    const message =
      'the routing store (Redis) is unreachable; predictions still work, retry this call later';
    return { code, message, retryAfterSeconds: 5, mapping, serverFault };
  }
  const message = err instanceof Error ? err.message : String(err);
  const details = detailsOf(err);
  const retryAfter = (err as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  const retryAfterMs = (err as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return {
    code,
    message: grpcDetailsOf(err) ?? message,
    ...(details ? { details } : {}),
    ...(typeof retryAfter === 'number' ? { retryAfterSeconds: retryAfter } : {}),
    ...(typeof retryAfter === 'number' && typeof retryAfterMs === 'number'
      ? { retryAfterMs: Math.max(1, Math.round(retryAfterMs)) }
      : {}),
    mapping,
    serverFault,
  };
}

export function errorBody(view: ErrorView): ErrorBody {
  return {
    error: {
      code: view.code,
      message: view.message,
      ...(view.details ? { details: view.details } : {}),
    },
  };
}

function codeOf(err: unknown): ErrorCode {
  if (typeof err !== 'object' || err === null) return 'INTERNAL';
  const { code, statusCode, status } = err as {
    code?: unknown;
    statusCode?: unknown;
    status?: unknown;
  };
  if (isErrorCode(code)) return code;
  if (isRedisUnavailable(err)) return 'STORE_UNAVAILABLE';
  // @mesh/kserve's BackendError: the backend's own gRPC status decides.
  const grpcCode = (err as { grpcCode?: unknown }).grpcCode;
  if (code === 'BACKEND_ERROR' && typeof grpcCode === 'number') {
    return (
      BACKEND_GRPC_STATUS[grpcCode as keyof typeof BACKEND_GRPC_STATUS] ?? 'BAD_BACKEND_RESPONSE'
    );
  }
  if (typeof code === 'string' && FASTIFY_CODES[code]) return FASTIFY_CODES[code];
  // A grpc-js ServiceError from a backend call carries a numeric status and `details`.
  if (typeof code === 'number' && 'details' in err) {
    return BACKEND_GRPC_STATUS[code as keyof typeof BACKEND_GRPC_STATUS] ?? 'BAD_BACKEND_RESPONSE';
  }
  const http =
    typeof statusCode === 'number' ? statusCode : typeof status === 'number' ? status : 0;
  if (err instanceof SyntaxError && http === 400) return 'INVALID_JSON';
  return HTTP_STATUS_CODES[http] ?? 'INTERNAL';
}

/**
 * ioredis gave up on a command because Redis did not answer: the command timeout of the
 * router's connection while Redis is down, or its retry limit.
 */
function isRedisUnavailable(err: object): boolean {
  const { name, message } = err as { name?: unknown; message?: unknown };
  return (
    name === 'MaxRetriesPerRequestError' ||
    message === 'Command timed out' ||
    message === 'Connection is closed.'
  );
}

/** A caller-safe message for backend failures (no backend addresses). */
function grpcDetailsOf(err: unknown): string | undefined {
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
