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

// The KServe side of these types (`INT64`, `BYTES`, element sizes, the TYPE_* <-> KServe
// mapping) lives in @mesh/kserve: `configTypeToDatatype`, `datatypeToConfigType`, `ELEMENT_BYTES`.

/** `TYPE_*` name for a numeric enum value (as sent on the wire without `enums: String`). */
export function dataTypeFromNumber(value: number): DataType | undefined {
  return (Object.keys(DATA_TYPES) as DataType[]).find((dt) => DATA_TYPES[dt] === value);
}
