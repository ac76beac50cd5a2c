import type { InferTensorContents } from './kserve.types';
import { TensorDatatypeError, TensorSizeError, TensorValueError } from './tensor.errors';
import { elementCount, formatShape } from './tensor-shape';
import { typedArrayToValues, valuesToTypedArray } from './tensor-values';
import {
  isKServeDatatype,
  type KServeDatatype,
  type TensorData,
  type TensorRef,
} from './tensor.types';

type ContentsField = keyof InferTensorContents;

/** Which typed `contents` list carries each datatype (FP16/BF16 have none). */
export const CONTENTS_FIELD: Readonly<Record<KServeDatatype, ContentsField | undefined>> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents',
  INT16: 'int_contents',
  INT32: 'int_contents',
  INT64: 'int64_contents',
  UINT8: 'uint_contents',
  UINT16: 'uint_contents',
  UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  FP16: undefined,
  BF16: undefined,
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
};

const ANON: TensorRef = { role: 'tensor', name: '?' };

function fieldFor(datatype: string, ref: TensorRef): [KServeDatatype, ContentsField] {
  if (!isKServeDatatype(datatype))
    throw new TensorDatatypeError(ref, `unknown datatype '${datatype}'`);
  const field = CONTENTS_FIELD[datatype];
  if (!field) {
    throw new TensorDatatypeError(
      ref,
      `${datatype} has no typed contents field; send it in ${ref.role === 'output' ? 'raw_output_contents' : 'raw_input_contents'}`,
    );
  }
  return [datatype, field];
}

// 64-bit values may arrive as numbers, decimal strings or Long objects
// depending on the loader's `longs` option; normalise to what
// valuesToTypedArray accepts.
function normaliseLong(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
    return (v as { toString(): string }).toString();
  }
  return v;
}

/**
 * Reads the typed `contents` of a tensor into the storage typed array (or
 * Buffer[] for BYTES), checking the element count against the shape and
 * each value against the datatype's range.
 */
export function contentsToTypedArray(
  contents: InferTensorContents | null | undefined,
  datatype: string,
  shape: readonly number[],
  ref: TensorRef = ANON,
): TensorData {
  const [dt, field] = fieldFor(datatype, ref);
  const count = elementCount(shape, ref);
  const list: readonly unknown[] = contents?.[field] ?? [];
  if (list.length !== count) {
    throw new TensorSizeError(
      ref,
      `contents.${field} has ${list.length} elements, expected ${count} (shape ${formatShape(shape)})`,
    );
  }
  if (dt === 'BYTES') {
    return list.map((el, i) => {
      if (Buffer.isBuffer(el)) return el;
      if (el instanceof Uint8Array) return Buffer.from(el.buffer, el.byteOffset, el.byteLength);
      if (typeof el === 'string') return Buffer.from(el, 'utf8');
      throw new TensorValueError(ref, `contents.bytes_contents element ${i} is not bytes`);
    });
  }
  const values = dt === 'INT64' || dt === 'UINT64' ? list.map(normaliseLong) : list;
  return valuesToTypedArray(values, dt, ref);
}

/**
 * Storage → typed `contents` (the response side when a client asked for
 * typed outputs). 64-bit integers become numbers when exact, else strings.
 */
export function typedArrayToContents(
  data: TensorData,
  datatype: string,
  ref: TensorRef = ANON,
): InferTensorContents {
  const [dt, field] = fieldFor(datatype, ref);
  if (dt === 'BYTES') {
    if (!Array.isArray(data)) throw new TensorValueError(ref, 'BYTES data must be Buffer[]');
    return { bytes_contents: data };
  }
  if (Array.isArray(data)) throw new TensorValueError(ref, `${dt} data must be a typed array`);
  const values = typedArrayToValues(data, dt);
  if (dt === 'BOOL') return { bool_contents: values as boolean[] };
  return { [field]: values };
}
