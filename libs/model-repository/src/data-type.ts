/** Triton's `inference.DataType` enum, names and numeric values exactly as in model_config.proto. */
export const DATA_TYPES = {
  TYPE_INVALID: 0,
  TYPE_BOOL: 1,
  TYPE_UINT8: 2,
  TYPE_UINT16: 3,
  TYPE_UINT32: 4,
  TYPE_UINT64: 5,
  TYPE_INT8: 6,
  TYPE_INT16: 7,
  TYPE_INT32: 8,
  TYPE_INT64: 9,
  TYPE_FP16: 10,
  TYPE_FP32: 11,
  TYPE_FP64: 12,
  TYPE_STRING: 13,
  TYPE_BF16: 14,
} as const;

export type DataType = keyof typeof DATA_TYPES;

/** A data type a tensor can actually have (configs declaring TYPE_INVALID are rejected). */
export type TensorDataType = Exclude<DataType, 'TYPE_INVALID'>;

/** KServe v2 datatype strings, as they appear in `ModelInferRequest.InferInputTensor.datatype`. */
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
  'FP32',
  'FP64',
  'BYTES',
  'BF16',
] as const;

export type KserveDatatype = (typeof KSERVE_DATATYPES)[number];

const TO_KSERVE: Readonly<Record<TensorDataType, KserveDatatype>> = {
  TYPE_BOOL: 'BOOL',
  TYPE_UINT8: 'UINT8',
  TYPE_UINT16: 'UINT16',
  TYPE_UINT32: 'UINT32',
  TYPE_UINT64: 'UINT64',
  TYPE_INT8: 'INT8',
  TYPE_INT16: 'INT16',
  TYPE_INT32: 'INT32',
  TYPE_INT64: 'INT64',
  TYPE_FP16: 'FP16',
  TYPE_FP32: 'FP32',
  TYPE_FP64: 'FP64',
  TYPE_STRING: 'BYTES',
  TYPE_BF16: 'BF16',
};

const FROM_KSERVE = new Map<string, TensorDataType>(
  Object.entries(TO_KSERVE).map(([dt, ks]) => [ks, dt as TensorDataType]),
);

/** Element sizes in bytes; BYTES/TYPE_STRING have none (each element carries its own length). */
const ELEMENT_BYTES: Readonly<Record<Exclude<KserveDatatype, 'BYTES'>, number>> = {
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
  FP32: 4,
  FP64: 8,
  BF16: 2,
};

/** `TYPE_INT64` → `INT64`, `TYPE_STRING` → `BYTES` (Triton's own mapping). */
export function dataTypeToKserve(dataType: TensorDataType): KserveDatatype {
  return TO_KSERVE[dataType];
}

/** `INT64` → `TYPE_INT64`; undefined for a string that is not a KServe datatype. */
export function kserveToDataType(datatype: string): TensorDataType | undefined {
  return FROM_KSERVE.get(datatype);
}

/** `TYPE_*` name for a numeric enum value (as sent on the wire without `enums: String`). */
export function dataTypeFromNumber(value: number): DataType | undefined {
  return (Object.keys(DATA_TYPES) as DataType[]).find((dt) => DATA_TYPES[dt] === value);
}

/**
 * Bytes per element for a config data type or a KServe datatype; undefined for variable-length
 * strings (TYPE_STRING / BYTES) and for unknown names.
 */
export function bytesPerElement(dataType: TensorDataType | KserveDatatype): number | undefined {
  const kserve = dataType.startsWith('TYPE_')
    ? dataTypeToKserve(dataType as TensorDataType)
    : dataType;
  if (kserve === 'BYTES') return undefined;
  return (ELEMENT_BYTES as Readonly<Record<string, number>>)[kserve];
}
