import { MeshError } from '@mesh/errors';

/**
 * Errors the model host raises. Each carries a `code` named after the gRPC status it maps to;
 * the edges translate codes to gRPC and HTTP status in one table (`error-status-map.ts`).
 */
export type HostErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'UNAVAILABLE'
  | 'RESOURCE_EXHAUSTED'
  | 'UNIMPLEMENTED'
  | 'CANCELLED'
  | 'INTERNAL';

export class HostError extends MeshError {
  constructor(
    readonly code: HostErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The request names a model or version the host does not know or does not serve. */
export class ModelNotFoundError extends HostError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** The request is malformed for this model: never reaches ORT. */
export class InvalidInferenceError extends HostError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }
}

/** The model exists but cannot take this request now (loading, unloading, queue full, timeout). */
export class ModelUnavailableError extends HostError {
  constructor(message: string) {
    super('UNAVAILABLE', message);
  }
}

/** The caller left (gRPC cancel, closed HTTP connection) before its request was dispatched. */
export class RequestCancelledError extends HostError {
  constructor(message = 'the caller cancelled the request before it ran') {
    super('CANCELLED', message);
  }
}

/** ORT failed while running a batch that passed validation. */
export class InferenceExecutionError extends HostError {
  constructor(message: string) {
    super('INTERNAL', message);
  }
}

/** Maps anything thrown to a HostError so the edges only deal with one shape. */
export function toHostError(err: unknown): HostError {
  if (err instanceof HostError) return err;
  if (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: unknown }).code === 'INVALID_ARGUMENT' &&
    err instanceof Error
  ) {
    return new InvalidInferenceError(err.message);
  }
  return new HostError('INTERNAL', err instanceof Error ? err.message : String(err));
}

/** A load would push the resident versions' footprints over MODEL_HOST_MEMORY_BUDGET_MB. */
export class MemoryBudgetExceededError extends HostError {
  constructor(message: string) {
    super('RESOURCE_EXHAUSTED', message);
  }
}
