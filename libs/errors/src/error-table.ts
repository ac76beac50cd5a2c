import { status as GrpcStatus } from '@grpc/grpc-js';

/** How one domain error code travels on each transport, and whether resending can help. */
export interface ErrorMapping {
  http: number;
  grpc: GrpcStatus;
  /** A client or worker may resend the same request later: unavailable, timed out, throttled. */
  retryable: boolean;
}

/**
 * The one table from domain error codes to HTTP and gRPC status, for every edge (router,
 * coordinator) and every retry decision (batch worker, CLIs). Client mistakes are 4xx and never
 * INTERNAL; only unknown failures become 500. "Too large" maps to INVALID_ARGUMENT on gRPC (not
 * RESOURCE_EXHAUSTED) so clients that retry RESOURCE_EXHAUSTED do not resend a request that can
 * never succeed. `retryable` is exactly the UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED
 * rows; conflicts (ABORTED) need a fresh read first, so they are not blind retries.
 */
export const ERROR_TABLE = {
  INVALID_ARGUMENT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  INVALID_INPUT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  INVALID_JSON: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  INVALID_ROUTING_CONFIG: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  INVALID_PLAN: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  UNAUTHENTICATED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, retryable: false },
  ADMIN_FORBIDDEN: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, retryable: false },
  TASK_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  JOB_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  ROLLOUT_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  METHOD_NOT_ALLOWED: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED, retryable: false },
  REQUEST_TIMEOUT: { http: 408, grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
  EPOCH_CONFLICT: { http: 409, grpc: GrpcStatus.ABORTED, retryable: false },
  REVISION_CONFLICT: { http: 409, grpc: GrpcStatus.ABORTED, retryable: false },
  FENCED: { http: 409, grpc: GrpcStatus.ABORTED, retryable: false },
  // The route's state refuses the call until an operator acts (another rollout, wrong state).
  ROLLOUT_CONFLICT: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  INVALID_COMMAND: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  ROUTE_CHANGED: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  TEXT_TOO_LONG: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  BATCH_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  // Well-formed, but the model repository cannot serve it (route edits, rollout plans).
  PLAN_REJECTED: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  UNKNOWN_MODEL: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  MODEL_CONFIG_INVALID: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  UNKNOWN_VERSION: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  VERSION_NOT_SELECTED: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  MANIFEST_INVALID: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  // A version whose footprint exceeds every backend's memory budget can never be placed.
  MODEL_TOO_LARGE: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  RATE_LIMITED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  TOO_MANY_IN_FLIGHT: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  JOB_QUOTA_EXCEEDED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  HEADERS_TOO_LARGE: { http: 431, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  // The caller left before the answer; nobody reads it (nginx's "client closed request").
  CLIENT_CLOSED: { http: 499, grpc: GrpcStatus.CANCELLED, retryable: false },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL, retryable: false },
  BAD_BACKEND_RESPONSE: { http: 502, grpc: GrpcStatus.INTERNAL, retryable: false },
  OUTPUT_SHAPE_MISMATCH: { http: 502, grpc: GrpcStatus.INTERNAL, retryable: false },
  BACKEND_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  VERSION_UNROUTABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  // A wanted version resident nowhere is being loaded; the cold-start wait ran out first.
  MODEL_LOADING: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  // Not seeded yet means not ready, on every edge (the coordinator answered 404 before).
  ROUTING_TABLE_MISSING: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  SHUTTING_DOWN: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  STORE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  BACKEND_TIMEOUT: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
} as const satisfies Record<string, ErrorMapping>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** The gRPC statuses a client may resend on; `retryable` in the table follows them. */
export const RETRYABLE_GRPC_STATUSES: ReadonlySet<GrpcStatus> = new Set([
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.RESOURCE_EXHAUSTED,
]);

/** What a backend's gRPC status means to the mesh's caller. */
export const BACKEND_GRPC_STATUS: Readonly<Partial<Record<GrpcStatus, ErrorCode>>> = {
  [GrpcStatus.UNAVAILABLE]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.CANCELLED]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.NOT_FOUND]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'BACKEND_TIMEOUT',
  [GrpcStatus.INVALID_ARGUMENT]: 'BAD_BACKEND_RESPONSE',
  [GrpcStatus.INTERNAL]: 'BAD_BACKEND_RESPONSE',
};

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, code);
}
