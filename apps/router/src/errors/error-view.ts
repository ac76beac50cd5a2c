import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '@mesh/config';
import {
  ERROR_TABLE,
  errorBody as meshErrorBody,
  errorCodeOf,
  type ErrorBody,
  type ErrorCode,
  type ErrorMapping,
} from '@mesh/errors';

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

/** Maps anything thrown to its domain code, message and safe details. */
export function describeError(err: unknown): ErrorView {
  const code = codeOf(err);
  const mapping = ERROR_TABLE[code];
  // No backend serving a version, or one still loading, is the fleet's state, not a fault.
  const serverFault =
    mapping.http >= 500 && code !== 'BACKEND_UNAVAILABLE' && code !== 'MODEL_LOADING';
  if (code === 'STORE_UNAVAILABLE') {
    // Says what is down, never the client library's wording; worth a retry a little later.
    const message =
      'the routing store (Redis) is unreachable; predictions still work, retry this call later';
    return { code, message, retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, mapping, serverFault };
  }
  const { message, details } = meshErrorBody(err, code).body.error;
  if (code === 'INTERNAL') return { code, message, mapping, serverFault: true };
  const retryAfter = (err as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  const retryAfterMs = (err as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return {
    code,
    message,
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

/** The table's code, refined with what only the router's edge knows (Redis, Fastify, Nest). */
function codeOf(err: unknown): ErrorCode {
  const code = errorCodeOf(err);
  if (code !== 'INTERNAL' || typeof err !== 'object' || err === null) return code;
  if (isStoreUnavailable(err)) return 'STORE_UNAVAILABLE';
  const {
    code: own,
    statusCode,
    status,
  } = err as {
    code?: unknown;
    statusCode?: unknown;
    status?: unknown;
  };
  if (typeof own === 'string' && FASTIFY_CODES[own]) return FASTIFY_CODES[own];
  const http =
    typeof statusCode === 'number' ? statusCode : typeof status === 'number' ? status : 0;
  if (err instanceof SyntaxError && http === 400) return 'INVALID_JSON';
  return HTTP_STATUS_CODES[http] ?? 'INTERNAL';
}
