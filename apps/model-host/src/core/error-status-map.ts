import { status } from '@grpc/grpc-js';
import type { HostErrorCode } from './model-host.errors';

/** The one table mapping the host's error codes to gRPC and HTTP status. */
export const ERROR_STATUS: Readonly<Record<HostErrorCode, { grpc: status; http: number }>> = {
  INVALID_ARGUMENT: { grpc: status.INVALID_ARGUMENT, http: 400 },
  NOT_FOUND: { grpc: status.NOT_FOUND, http: 404 },
  UNAVAILABLE: { grpc: status.UNAVAILABLE, http: 503 },
  RESOURCE_EXHAUSTED: { grpc: status.RESOURCE_EXHAUSTED, http: 413 },
  UNIMPLEMENTED: { grpc: status.UNIMPLEMENTED, http: 501 },
  // Nobody reads this answer (the caller left); 499 is the de-facto "client closed request".
  CANCELLED: { grpc: status.CANCELLED, http: 499 },
  INTERNAL: { grpc: status.INTERNAL, http: 500 },
};
