import {
  ELEMENT_BYTES,
  KSERVE_DATATYPES,
  configTypeToDatatype,
  datatypeToConfigType,
  isKServeDatatype,
  type KServeDatatype,
} from './tensor.types';

/** model_config.proto `TYPE_*` name, its KServe datatype, bytes per element. */
const TABLE: [string, KServeDatatype, number | undefined][] = [
  ['TYPE_BOOL', 'BOOL', 1],
  ['TYPE_UINT8', 'UINT8', 1],
  ['TYPE_UINT16', 'UINT16', 2],
  ['TYPE_UINT32', 'UINT32', 4],
  ['TYPE_UINT64', 'UINT64', 8],
  ['TYPE_INT8', 'INT8', 1],
  ['TYPE_INT16', 'INT16', 2],
  ['TYPE_INT32', 'INT32', 4],
  ['TYPE_INT64', 'INT64', 8],
  ['TYPE_FP16', 'FP16', 2],
  ['TYPE_FP32', 'FP32', 4],
  ['TYPE_FP64', 'FP64', 8],
  ['TYPE_STRING', 'BYTES', undefined],
  ['TYPE_BF16', 'BF16', 2],
];

describe('config data type <-> KServe datatype', () => {
  it.each(TABLE)('%s is KServe %s, %p bytes', (configType, datatype, bytes) => {
    expect(configTypeToDatatype(configType)).toBe(datatype);
    expect(datatypeToConfigType(datatype)).toBe(configType);
    expect(datatype === 'BYTES' ? undefined : ELEMENT_BYTES[datatype]).toBe(bytes);
  });

  it('covers every KServe datatype', () => {
    expect([...KSERVE_DATATYPES].sort()).toEqual(TABLE.map((r) => r[1]).sort());
  });

  it.each(['FLOAT32', 'int64', 'TYPE_INT64', 'STRING', ''])('is not a KServe datatype: %p', (s) => {
    expect(isKServeDatatype(s)).toBe(false);
  });

  it.each(['TYPE_INVALID', 'TYPE_BYTES', 'INT64', ''])('maps no datatype for %p', (s) => {
    expect(configTypeToDatatype(s)).toBeUndefined();
  });
});
