import { TensorDatatypeError, TensorShapeError } from './tensor.errors';
import {
  ELEMENT_BYTES,
  isKServeDatatype,
  type KServeDatatype,
  type TensorRef,
} from './tensor.types';

/**
 * Upper bound on elements in one tensor. Far above anything a 64 MiB message
 * can carry, but low enough that sizes stay exact integers and a declared
 * shape like [1e9, 1e9] is refused before anything is allocated.
 */
export const MAX_TENSOR_ELEMENTS = 2 ** 31 - 1;

const ANON: TensorRef = { role: 'tensor', name: '?' };

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** Number of elements of `shape`; throws on negative/fractional dims or overflow. */
export function elementCount(shape: readonly number[], ref: TensorRef = ANON): number {
  let count = 1;
  for (const dim of shape) {
    if (!Number.isSafeInteger(dim) || dim < 0) {
      throw new TensorShapeError(
        ref,
        `shape ${formatShape(shape)} has dimension ${String(dim)}; every dimension must be an integer >= 0`,
      );
    }
    count *= dim;
    if (count > MAX_TENSOR_ELEMENTS) {
      throw new TensorShapeError(
        ref,
        `shape ${formatShape(shape)} declares more than ${MAX_TENSOR_ELEMENTS} elements`,
      );
    }
  }
  return count;
}

/** Bytes per element of a fixed-size datatype; throws for BYTES or unknown names. */
export function elementBytes(datatype: string, ref: TensorRef = ANON): number {
  if (!isKServeDatatype(datatype)) {
    throw new TensorDatatypeError(ref, `unknown datatype '${datatype}'`);
  }
  if (datatype === 'BYTES') {
    throw new TensorDatatypeError(ref, 'BYTES elements have no fixed size');
  }
  return ELEMENT_BYTES[datatype];
}

/** Raw byte size of a fixed-size tensor (shape × element size). */
export function byteSize(
  datatype: Exclude<KServeDatatype, 'BYTES'>,
  shape: readonly number[],
  ref: TensorRef = ANON,
): number {
  return elementCount(shape, ref) * elementBytes(datatype, ref);
}
