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

/**
 * What a backend says when the model version asked for is not loaded there (any more): Triton's
 * "unknown model" / "is not at ready state", the embedded host's "unknown version" / "is not
 * ready: unloaded". With placement, versions are unloaded while routers may still hold them in
 * their last discovery round, so this is the model's absence on that backend, not a backend
 * fault: it must not open the backend's circuit, and the call goes elsewhere (or waits for a
 * load).
 */
const NOT_HERE =
  /unknown model|unknown version|not at ready state|is not ready|unloaded|no ready version/i;

export function isModelNotHere(err: unknown): err is BackendError {
  return (
    err instanceof BackendError &&
    err.method === 'ModelInfer' &&
    (err.grpcCode === GrpcStatus.NOT_FOUND ||
      (err.grpcCode === GrpcStatus.UNAVAILABLE && NOT_HERE.test(err.grpcMessage)))
  );
}

/**
 * Every backend that should have served the version answered that it does not hold it (it was
 * unloaded since discovery). A router treats the version as cold again.
 */
export class VersionNotResidentError extends BackendUnavailableError {}
