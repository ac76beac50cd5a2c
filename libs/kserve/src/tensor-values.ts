import { fromBfloat16Bits, fromHalfBits, toBfloat16Bits, toHalfBits } from './half-float';
import { TensorValueError } from './tensor.errors';
import type { FixedDatatype, TensorRef, TypedArray, TypedArrayFor } from './tensor.types';

/** A plain JS element value as it appears in JSON or in a caller's array. */
export type ElementValue = number | bigint | boolean | string;

const INT_RANGES = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
} as const;

const BIG_RANGES = {
  INT64: [-(2n ** 63n), 2n ** 63n - 1n],
  UINT64: [0n, 2n ** 64n - 1n],
} as const;

/** A zero-filled typed array of the storage type for `datatype`. */
export function allocTypedArray<D extends FixedDatatype>(
  datatype: D,
  length: number,
): TypedArrayFor[D] {
  return new STORAGE[datatype](length) as TypedArrayFor[D];
}

/** `count` elements of `datatype`'s storage type over `buffer` from `byteOffset` (no copy). */
export function typedArrayView(
  datatype: FixedDatatype,
  buffer: ArrayBufferLike,
  byteOffset: number,
  count: number,
): TypedArray {
  return new STORAGE[datatype](buffer, byteOffset, count);
}

/** A storage type's constructor: zero-filled of a length, or a view over existing bytes. */
interface StorageType {
  new (length: number): TypedArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray;
}

/** The typed array each datatype is stored in (FP16 and BF16 as their 16-bit patterns). */
const STORAGE: Record<FixedDatatype, StorageType> = {
  BOOL: Uint8Array,
  UINT8: Uint8Array,
  UINT16: Uint16Array,
  UINT32: Uint32Array,
  UINT64: BigUint64Array,
  INT8: Int8Array,
  INT16: Int16Array,
  INT32: Int32Array,
  INT64: BigInt64Array,
  FP16: Uint16Array,
  BF16: Uint16Array,
  FP32: Float32Array,
  FP64: Float64Array,
};

/** True when `data` is the storage type this codec uses for `datatype`. */
export function isStorageFor(data: unknown, datatype: FixedDatatype): data is TypedArray {
  const probe = new STORAGE[datatype](0);
  return (
    ArrayBuffer.isView(data) &&
    !(data instanceof DataView) &&
    Object.getPrototypeOf(data) === Object.getPrototypeOf(probe) &&
    !(data instanceof Buffer && datatype !== 'UINT8' && datatype !== 'BOOL')
  );
}

function fail(ref: TensorRef, index: number, value: unknown, expected: string): never {
  const shown = typeof value === 'string' ? `'${value}'` : String(value);
  throw new TensorValueError(ref, `element ${index} is ${shown}, expected ${expected}`);
}

function toBigInt(value: unknown, datatype: 'INT64' | 'UINT64', ref: TensorRef, i: number): bigint {
  let big: bigint | undefined;
  if (typeof value === 'bigint') big = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) big = BigInt(value);
  else if (typeof value === 'string' && /^-?\d+$/.test(value)) big = BigInt(value);
  const [lo, hi] = BIG_RANGES[datatype];
  if (big === undefined || big < lo || big > hi) {
    fail(ref, i, value, `an integer in the ${datatype} range [${lo}, ${hi}]`);
  }
  return big;
}

function toNumber(value: unknown, datatype: FixedDatatype, ref: TensorRef, i: number): number {
  if (datatype === 'BOOL') {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === 0 || value === 1) return value;
    return fail(ref, i, value, 'a boolean');
  }
  if (typeof value !== 'number') return fail(ref, i, value, `a ${datatype} number`);
  if (datatype in INT_RANGES) {
    const [lo, hi] = INT_RANGES[datatype as keyof typeof INT_RANGES];
    if (!Number.isInteger(value) || value < lo || value > hi) {
      fail(ref, i, value, `an integer in the ${datatype} range [${lo}, ${hi}]`);
    }
  }
  if (datatype === 'FP16') return toHalfBits(value);
  if (datatype === 'BF16') return toBfloat16Bits(value);
  return value;
}

/** Validates plain values and packs them into the storage typed array. */
export function valuesToTypedArray(
  values: readonly unknown[],
  datatype: FixedDatatype,
  ref: TensorRef,
): TypedArray {
  const out = allocTypedArray(datatype, values.length);
  if (datatype === 'INT64' || datatype === 'UINT64') {
    const big = out as BigInt64Array | BigUint64Array;
    values.forEach((v, i) => (big[i] = toBigInt(v, datatype, ref, i)));
    return out;
  }
  const num = out as Exclude<TypedArray, BigInt64Array | BigUint64Array>;
  values.forEach((v, i) => (num[i] = toNumber(v, datatype, ref, i)));
  return out;
}

/**
 * Storage → plain values for JSON: FP16/BF16 decoded to numbers, BOOL to
 * booleans, 64-bit integers to numbers when exact, else decimal strings.
 */
export function typedArrayToValues(
  data: TypedArray,
  datatype: FixedDatatype,
): (number | boolean | string)[] {
  const out: (number | boolean | string)[] = new Array<number | boolean | string>(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i] ?? 0;
    if (typeof v === 'bigint') {
      const n = Number(v);
      out[i] = Number.isSafeInteger(n) ? n : v.toString();
    } else if (datatype === 'BOOL') out[i] = v !== 0;
    else if (datatype === 'FP16') out[i] = fromHalfBits(v);
    else if (datatype === 'BF16') out[i] = fromBfloat16Bits(v);
    else out[i] = v;
  }
  return out;
}
