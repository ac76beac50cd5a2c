import { DATA_TYPES, dataTypeFromNumber, type TensorDataType } from './data-type';

const TABLE: [TensorDataType, number][] = [
  ['TYPE_BOOL', 1],
  ['TYPE_UINT8', 2],
  ['TYPE_UINT16', 3],
  ['TYPE_UINT32', 4],
  ['TYPE_UINT64', 5],
  ['TYPE_INT8', 6],
  ['TYPE_INT16', 7],
  ['TYPE_INT32', 8],
  ['TYPE_INT64', 9],
  ['TYPE_FP16', 10],
  ['TYPE_FP32', 11],
  ['TYPE_FP64', 12],
  ['TYPE_STRING', 13],
  ['TYPE_BF16', 14],
];

describe('data types', () => {
  it.each(TABLE)('%s is enum value %i', (dt, number) => {
    expect(DATA_TYPES[dt]).toBe(number);
    expect(dataTypeFromNumber(number)).toBe(dt);
  });

  it('covers the whole proto enum', () => {
    expect(Object.keys(DATA_TYPES)).toEqual(['TYPE_INVALID', ...TABLE.map((r) => r[0])]);
    expect(DATA_TYPES.TYPE_INVALID).toBe(0);
  });

  it('maps the invalid and unknown enum numbers sensibly', () => {
    expect(dataTypeFromNumber(0)).toBe('TYPE_INVALID');
    expect(dataTypeFromNumber(15)).toBeUndefined();
  });
});
