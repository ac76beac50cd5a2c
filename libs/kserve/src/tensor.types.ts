/** KServe v2 tensor datatypes (the `datatype` string on the wire). */
export const KSERVE_DATATYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'BF16',
  'FP32',
  'FP64',
  'BYTES',
] as const;

export type KServeDatatype = (typeof KSERVE_DATATYPES)[number];

/** Datatypes with a fixed element size (everything but BYTES). */
export type FixedDatatype = Exclude<KServeDatatype, 'BYTES'>;

/**
 * In-memory element storage per datatype. BOOL is one byte (0/1), FP16/BF16
 * keep their raw 16-bit patterns (Node 20 has no Float16Array), 64-bit
 * integers are bigint arrays so no precision is lost.
 */
export interface TypedArrayFor {
  BOOL: Uint8Array;
  UINT8: Uint8Array;
  UINT16: Uint16Array;
  UINT32: Uint32Array;
  UINT64: BigUint64Array;
  INT8: Int8Array;
  INT16: Int16Array;
  INT32: Int32Array;
  INT64: BigInt64Array;
  FP16: Uint16Array;
  BF16: Uint16Array;
  FP32: Float32Array;
  FP64: Float64Array;
}

export type TypedArray = TypedArrayFor[FixedDatatype];

/** Elements of a tensor: a typed array, or one Buffer per element for BYTES. */
export type TensorData = TypedArray | Buffer[];

/** The mesh's own tensor; protobuf and JSON shapes stay at the edges. */
export interface Tensor {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  data: TensorData;
}

/** How a tensor is named in error messages, e.g. `input 'input_ids'`. */
export interface TensorRef {
  role: 'input' | 'output' | 'tensor';
  name: string;
}

export const ELEMENT_BYTES: Readonly<Record<FixedDatatype, number>> = {
  BOOL: 1,
  UINT8: 1,
  UINT16: 2,
  UINT32: 4,
  UINT64: 8,
  INT8: 1,
  INT16: 2,
  INT32: 4,
  INT64: 8,
  FP16: 2,
  BF16: 2,
  FP32: 4,
  FP64: 8,
};

export function isKServeDatatype(value: unknown): value is KServeDatatype {
  return typeof value === 'string' && (KSERVE_DATATYPES as readonly string[]).includes(value);
}

/** `TYPE_INT64` (config.pbtxt) → `INT64`; `TYPE_STRING` → `BYTES`; unknown → undefined. */
export function configTypeToDatatype(dataType: string): KServeDatatype | undefined {
  if (dataType === 'TYPE_STRING') return 'BYTES';
  const bare = dataType.startsWith('TYPE_') ? dataType.slice(5) : '';
  return isKServeDatatype(bare) && bare !== 'BYTES' ? bare : undefined;
}

/** `INT64` → `TYPE_INT64`; `BYTES` → `TYPE_STRING`. */
export function datatypeToConfigType(datatype: KServeDatatype): string {
  return datatype === 'BYTES' ? 'TYPE_STRING' : `TYPE_${datatype}`;
}

export function describeRef(ref: TensorRef): string {
  return `${ref.role} '${ref.name}'`;
}
