import { endianness } from 'node:os';
import { TensorDatatypeError, TensorSizeError, TensorValueError } from './tensor.errors';
import { elementCount, formatShape } from './tensor-shape';
import { allocTypedArray, isStorageFor, typedArrayView, valuesToTypedArray } from './tensor-values';
import {
  ELEMENT_BYTES,
  isKServeDatatype,
  type FixedDatatype,
  type KServeDatatype,
  type Tensor,
  type TensorData,
  type TensorRef,
  type TypedArray,
} from './tensor.types';

// The wire format is little-endian; typed arrays use host order. On a
// big-endian host every element goes through DataView instead of a view.
const HOST_IS_LE = endianness() === 'LE';
const ANON: TensorRef = { role: 'tensor', name: '?' };

function rawField(ref: TensorRef): string {
  if (ref.role === 'input') return 'raw_input_contents';
  if (ref.role === 'output') return 'raw_output_contents';
  return 'raw data';
}

function checkDatatype(datatype: string, ref: TensorRef): KServeDatatype {
  if (!isKServeDatatype(datatype))
    throw new TensorDatatypeError(ref, `unknown datatype '${datatype}'`);
  return datatype;
}

/** Splits KServe BYTES framing: each element is a uint32 LE length, then the bytes. */
export function decodeBytesElements(buf: Buffer, count: number, ref: TensorRef = ANON): Buffer[] {
  if (count * 4 > buf.length) {
    throw new TensorSizeError(
      ref,
      `${rawField(ref)} has ${buf.length} bytes, too few for ${count} BYTES elements (4-byte length prefix each)`,
    );
  }
  const out: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > buf.length) {
      throw new TensorValueError(ref, `BYTES element ${i} is missing its 4-byte length prefix`);
    }
    const len = buf.readUInt32LE(offset);
    offset += 4;
    if (offset + len > buf.length) {
      throw new TensorValueError(
        ref,
        `BYTES element ${i} declares ${len} bytes but only ${buf.length - offset} remain`,
      );
    }
    out.push(buf.subarray(offset, offset + len));
    offset += len;
  }
  if (offset !== buf.length) {
    throw new TensorSizeError(
      ref,
      `${rawField(ref)} has ${buf.length - offset} bytes after the ${count} BYTES elements the shape declares`,
    );
  }
  return out;
}

/** Frames BYTES elements (Buffers, or strings as UTF-8) with uint32 LE length prefixes. */
export function encodeBytesElements(elements: readonly (Buffer | string)[]): Buffer {
  const parts: Buffer[] = [];
  for (const el of elements) {
    const body = typeof el === 'string' ? Buffer.from(el, 'utf8') : el;
    const prefix = Buffer.allocUnsafe(4);
    prefix.writeUInt32LE(body.length, 0);
    parts.push(prefix, body);
  }
  return Buffer.concat(parts);
}

/**
 * Decodes one tensor's raw little-endian bytes after checking the size
 * against shape × datatype. Returns a view on `buf` when aligned, else a copy.
 */
export function decodeRawTensor(
  buf: Buffer,
  datatype: string,
  shape: readonly number[],
  ref: TensorRef = ANON,
): TensorData {
  const dt = checkDatatype(datatype, ref);
  const count = elementCount(shape, ref);
  if (dt === 'BYTES') return decodeBytesElements(buf, count, ref);
  const size = ELEMENT_BYTES[dt];
  const expected = count * size;
  if (buf.length !== expected) {
    throw new TensorSizeError(
      ref,
      `${rawField(ref)} has ${buf.length} bytes, expected ${expected} (shape ${formatShape(shape)} × ${dt} ${size} bytes)`,
    );
  }
  if (!HOST_IS_LE) return readWithDataView(buf, dt, count);
  if (buf.byteOffset % size === 0) return typedArrayView(dt, buf.buffer, buf.byteOffset, count);
  const copy = new Uint8Array(expected);
  copy.set(buf);
  return typedArrayView(dt, copy.buffer, 0, count);
}

/** Byte-order-explicit element reader; used on big-endian hosts (and in tests). */
export function readWithDataView(buf: Buffer, dt: FixedDatatype, count: number): TypedArray {
  const out = allocTypedArray(dt, count);
  // One element type per datatype; the union's index signature needs widening.
  const sink = out as unknown as { [i: number]: number | bigint };
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const size = ELEMENT_BYTES[dt];
  for (let i = 0; i < count; i++) sink[i] = READERS[dt](dv, i * size);
  return out;
}

/** Byte-order-explicit element writer; the counterpart of readWithDataView. */
export function writeWithDataView(data: TypedArray, dt: FixedDatatype): Buffer {
  const size = ELEMENT_BYTES[dt];
  const out = Buffer.alloc(data.length * size);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < data.length; i++) WRITERS[dt](dv, i * size, data[i] ?? 0);
  return out;
}

type Reader = (dv: DataView, at: number) => number | bigint;
const r = (fn: Reader): Reader => fn;
const READERS: Record<FixedDatatype, Reader> = {
  BOOL: r((dv, at) => dv.getUint8(at)),
  UINT8: r((dv, at) => dv.getUint8(at)),
  UINT16: r((dv, at) => dv.getUint16(at, true)),
  FP16: r((dv, at) => dv.getUint16(at, true)),
  BF16: r((dv, at) => dv.getUint16(at, true)),
  UINT32: r((dv, at) => dv.getUint32(at, true)),
  UINT64: r((dv, at) => dv.getBigUint64(at, true)),
  INT8: r((dv, at) => dv.getInt8(at)),
  INT16: r((dv, at) => dv.getInt16(at, true)),
  INT32: r((dv, at) => dv.getInt32(at, true)),
  INT64: r((dv, at) => dv.getBigInt64(at, true)),
  FP32: r((dv, at) => dv.getFloat32(at, true)),
  FP64: r((dv, at) => dv.getFloat64(at, true)),
};

type Writer = (dv: DataView, at: number, v: number | bigint) => void;
const WRITERS: Record<FixedDatatype, Writer> = {
  BOOL: (dv, at, v) => dv.setUint8(at, Number(v)),
  UINT8: (dv, at, v) => dv.setUint8(at, Number(v)),
  UINT16: (dv, at, v) => dv.setUint16(at, Number(v), true),
  FP16: (dv, at, v) => dv.setUint16(at, Number(v), true),
  BF16: (dv, at, v) => dv.setUint16(at, Number(v), true),
  UINT32: (dv, at, v) => dv.setUint32(at, Number(v), true),
  UINT64: (dv, at, v) => dv.setBigUint64(at, BigInt(v), true),
  INT8: (dv, at, v) => dv.setInt8(at, Number(v)),
  INT16: (dv, at, v) => dv.setInt16(at, Number(v), true),
  INT32: (dv, at, v) => dv.setInt32(at, Number(v), true),
  INT64: (dv, at, v) => dv.setBigInt64(at, BigInt(v), true),
  FP32: (dv, at, v) => dv.setFloat32(at, Number(v), true),
  FP64: (dv, at, v) => dv.setFloat64(at, Number(v), true),
};

/**
 * Encodes elements as little-endian raw bytes. Accepts the storage typed
 * array (zero-copy on little-endian hosts), plain values (validated), or for
 * BYTES an array of Buffers/strings.
 */
export function encodeRawTensor(
  data: TensorData | readonly unknown[],
  datatype: string,
  ref: TensorRef = ANON,
): Buffer {
  const dt = checkDatatype(datatype, ref);
  if (dt === 'BYTES') {
    if (!Array.isArray(data) || !data.every((d) => Buffer.isBuffer(d) || typeof d === 'string')) {
      throw new TensorValueError(ref, 'BYTES data must be an array of Buffers or strings');
    }
    return encodeBytesElements(data as (Buffer | string)[]);
  }
  let arr: TypedArray;
  if (isStorageFor(data, dt)) arr = data;
  else if (Array.isArray(data)) arr = valuesToTypedArray(data, dt, ref);
  else throw new TensorValueError(ref, `data is not a ${dt} typed array or an array of values`);
  if (!HOST_IS_LE) return writeWithDataView(arr, dt);
  return Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
}

/** Checks that a domain tensor's data matches its shape and encodes it. */
export function tensorToRaw(tensor: Tensor, role: TensorRef['role'] = 'input'): Buffer {
  const ref: TensorRef = { role, name: tensor.name };
  const count = elementCount(tensor.shape, ref);
  if (tensor.data.length !== count) {
    throw new TensorSizeError(
      ref,
      `has ${tensor.data.length} elements, expected ${count} (shape ${formatShape(tensor.shape)})`,
    );
  }
  return encodeRawTensor(tensor.data, tensor.datatype, ref);
}

/** Builds a domain tensor from raw bytes (size checked). */
export function tensorFromRaw(
  name: string,
  datatype: string,
  shape: readonly number[],
  buf: Buffer,
  role: TensorRef['role'] = 'input',
): Tensor {
  const ref: TensorRef = { role, name };
  const data = decodeRawTensor(buf, datatype, shape, ref);
  return { name, datatype: datatype as KServeDatatype, shape: [...shape], data };
}
