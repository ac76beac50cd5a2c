import { status as GrpcStatus } from '@grpc/grpc-js';

/** How one domain error code travels on each transport. */
export interface ErrorMapping {
  http: number;
  grpc: GrpcStatus;
}

/**
 * The one table from domain error codes (raised by the libs and the router) to HTTP and
 * gRPC status. Client mistakes are 4xx / non-INTERNAL; only unknown failures become 500.
 * "Too large" maps to INVALID_ARGUMENT on gRPC (not RESOURCE_EXHAUSTED) so clients that
 * retry RESOURCE_EXHAUSTED do not resend a request that can never succeed.
 */
export const ERROR_TABLE = {
  INVALID_ARGUMENT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INVALID_INPUT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INVALID_JSON: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  INVALID_ROUTING_CONFIG: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  UNAUTHENTICATED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  ADMIN_FORBIDDEN: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  TASK_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  JOB_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  METHOD_NOT_ALLOWED: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  REQUEST_TIMEOUT: { http: 408, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  EPOCH_CONFLICT: { http: 409, grpc: GrpcStatus.ABORTED },
  PAYLOAD_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT },
  TEXT_TOO_LONG: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT },
  BATCH_TOO_LARGE: { http: 413, grpc: GrpcStatus.INVALID_ARGUMENT },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  UNKNOWN_MODEL: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  MODEL_CONFIG_INVALID: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  UNKNOWN_VERSION: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  VERSION_NOT_SELECTED: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  MANIFEST_INVALID: { http: 422, grpc: GrpcStatus.FAILED_PRECONDITION },
  HEADERS_TOO_LARGE: { http: 431, grpc: GrpcStatus.INVALID_ARGUMENT },
  RATE_LIMITED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  TOO_MANY_IN_FLIGHT: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  JOB_QUOTA_EXCEEDED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  // The caller left before the answer; nobody reads it (nginx's "client closed request").
  CLIENT_CLOSED: { http: 499, grpc: GrpcStatus.CANCELLED },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL },
  BAD_BACKEND_RESPONSE: { http: 502, grpc: GrpcStatus.INTERNAL },
  OUTPUT_SHAPE_MISMATCH: { http: 502, grpc: GrpcStatus.INTERNAL },
  BACKEND_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  VERSION_UNROUTABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  ROUTING_TABLE_MISSING: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  SHUTTING_DOWN: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  STORE_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  BACKEND_TIMEOUT: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
} as const satisfies Record<string, ErrorMapping>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_TABLE, code);
}

/** What a backend's gRPC status means to the router's caller. */
export const BACKEND_GRPC_STATUS: Readonly<Partial<Record<GrpcStatus, ErrorCode>>> = {
  [GrpcStatus.UNAVAILABLE]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.CANCELLED]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.NOT_FOUND]: 'BACKEND_UNAVAILABLE',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'BACKEND_TIMEOUT',
  [GrpcStatus.INVALID_ARGUMENT]: 'BAD_BACKEND_RESPONSE',
  [GrpcStatus.INTERNAL]: 'BAD_BACKEND_RESPONSE',
};
