import { MeshError } from '@mesh/errors';
import { describeRef, type TensorRef } from './tensor.types';

/**
 * A tensor that does not match what was declared or expected. Always the
 * caller's fault, so every subclass maps to INVALID_ARGUMENT (HTTP 400).
 */
export class TensorError extends MeshError {
  readonly code = 'INVALID_ARGUMENT' as const;

  constructor(
    readonly tensor: TensorRef,
    detail: string,
  ) {
    super(`${describeRef(tensor)}: ${detail}`);
  }
}

/** Bad shape: negative or fractional dims, or more elements than allowed. */
export class TensorShapeError extends TensorError {}

/** Unknown datatype, or a datatype that cannot travel the requested way. */
export class TensorDatatypeError extends TensorError {}

/** Data size or element count differs from shape × datatype. */
export class TensorSizeError extends TensorError {}

/** Element values that cannot be represented (range, type, BYTES framing). */
export class TensorValueError extends TensorError {}

/** A malformed inference request body (not tied to one tensor). */
export class InferRequestError extends MeshError {
  readonly code = 'INVALID_ARGUMENT' as const;

  constructor(message: string) {
    super(message);
  }
}
