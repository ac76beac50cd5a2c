import {
  DATA_TYPES,
  KSERVE_DATATYPES,
  bytesPerElement,
  dataTypeFromNumber,
  dataTypeToKserve,
  kserveToDataType,
  type KserveDatatype,
  type TensorDataType,
} from './data-type';

const TABLE: [TensorDataType, number, KserveDatatype, number | undefined][] = [
  ['TYPE_BOOL', 1, 'BOOL', 1],
  ['TYPE_UINT8', 2, 'UINT8', 1],
  ['TYPE_UINT16', 3, 'UINT16', 2],
  ['TYPE_UINT32', 4, 'UINT32', 4],
  ['TYPE_UINT64', 5, 'UINT64', 8],
  ['TYPE_INT8', 6, 'INT8', 1],
  ['TYPE_INT16', 7, 'INT16', 2],
  ['TYPE_INT32', 8, 'INT32', 4],
  ['TYPE_INT64', 9, 'INT64', 8],
  ['TYPE_FP16', 10, 'FP16', 2],
  ['TYPE_FP32', 11, 'FP32', 4],
  ['TYPE_FP64', 12, 'FP64', 8],
  ['TYPE_STRING', 13, 'BYTES', undefined],
  ['TYPE_BF16', 14, 'BF16', 2],
];

describe('data types', () => {
  it.each(TABLE)('%s is enum value %i, KServe %s, %p bytes', (dt, number, kserve, bytes) => {
    expect(DATA_TYPES[dt]).toBe(number);
    expect(dataTypeFromNumber(number)).toBe(dt);
    expect(dataTypeToKserve(dt)).toBe(kserve);
    expect(kserveToDataType(kserve)).toBe(dt);
    expect(bytesPerElement(dt)).toBe(bytes);
    expect(bytesPerElement(kserve)).toBe(bytes);
  });

  it('covers the whole proto enum and every KServe datatype', () => {
    expect(Object.keys(DATA_TYPES)).toEqual(['TYPE_INVALID', ...TABLE.map((r) => r[0])]);
    expect(DATA_TYPES.TYPE_INVALID).toBe(0);
    expect([...KSERVE_DATATYPES].sort()).toEqual(TABLE.map((r) => r[2]).sort());
  });

  it.each(['FLOAT32', 'int64', 'TYPE_INT64', 'STRING', ''])('does not map %p from KServe', (s) => {
    expect(kserveToDataType(s)).toBeUndefined();
  });

  it('maps the invalid and unknown enum numbers sensibly', () => {
    expect(dataTypeFromNumber(0)).toBe('TYPE_INVALID');
    expect(dataTypeFromNumber(15)).toBeUndefined();
  });
});
