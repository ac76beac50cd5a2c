import { status as GrpcStatus } from '@grpc/grpc-js';
import { MeshError } from '@mesh/errors';

const STATUS_NAMES = Object.fromEntries(
  Object.entries(GrpcStatus)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as number, k]),
) as Record<number, string>;

/** `14` → `UNAVAILABLE`. */
export function grpcStatusName(code: number): string {
  return STATUS_NAMES[code] ?? `STATUS_${code}`;
}

/**
 * No backend could take the call: none healthy/serving the model, every
 * circuit open, or UNAVAILABLE after the retries. Apps map it to 503 /
 * gRPC UNAVAILABLE.
 */
export class BackendUnavailableError extends MeshError {
  readonly code = 'BACKEND_UNAVAILABLE' as const;

  constructor(
    message: string,
    readonly details: { model?: string; version?: string; backends?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

/**
 * A backend answered with a non-OK gRPC status (or a malformed response).
 * `grpcCode` / `grpcMessage` are what the backend said; apps map the code.
 */
export class BackendError extends MeshError {
  readonly code = 'BACKEND_ERROR' as const;

  constructor(
    readonly backend: string,
    readonly method: string,
    readonly grpcCode: GrpcStatus,
    readonly grpcMessage: string,
  ) {
    super(`${backend} ${method}: ${grpcStatusName(grpcCode)}: ${grpcMessage}`);
  }
}
