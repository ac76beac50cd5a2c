import {
  decodeBytesElements,
  decodeRawTensor,
  encodeBytesElements,
  encodeRawTensor,
  readWithDataView,
  tensorFromRaw,
  tensorToRaw,
  writeWithDataView,
} from './tensor.codec';
import {
  TensorDatatypeError,
  TensorError,
  TensorShapeError,
  TensorSizeError,
  TensorValueError,
} from './tensor.errors';
import { byteSize, elementCount, MAX_TENSOR_ELEMENTS } from './tensor-shape';
import { fromBfloat16Bits, fromHalfBits, toBfloat16Bits, toHalfBits } from './half-float';
import type { FixedDatatype, TypedArray } from './tensor.types';

const ref = { role: 'input' as const, name: 'input_ids' };

const SAMPLES: Record<FixedDatatype, unknown[]> = {
  BOOL: [true, false, true],
  UINT8: [0, 255, 7],
  UINT16: [0, 65535, 300],
  UINT32: [0, 4294967295, 70000],
  UINT64: [0n, 2n ** 64n - 1n, 12345678901234567890n],
  INT8: [-128, 127, -1],
  INT16: [-32768, 32767, -2],
  INT32: [-2147483648, 2147483647, -3],
  INT64: [-(2n ** 63n), 2n ** 63n - 1n, -4n],
  FP16: [1.5, -2, 65504],
  BF16: [1.5, -2, 256],
  FP32: [1.5, -2.25, 3.4e38],
  FP64: [Math.PI, -1e300, 5e-324],
};

// Little-endian bytes of the first two sample elements, written out by hand.
const LE_PREFIX: Partial<Record<FixedDatatype, number[]>> = {
  UINT16: [0x00, 0x00, 0xff, 0xff],
  INT32: [0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f],
  INT64: [0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
  FP16: [0x00, 0x3e, 0x00, 0xc0],
  FP32: [0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x10, 0xc0],
};

describe('elementCount / byteSize', () => {
  it('multiplies dimensions and scales by the element size', () => {
    expect(elementCount([2, 3, 4])).toBe(24);
    expect(elementCount([])).toBe(1);
    expect(elementCount([0, 5])).toBe(0);
    expect(byteSize('INT64', [1, 4])).toBe(32);
    expect(byteSize('FP16', [3])).toBe(6);
  });

  it('rejects negative and fractional dimensions naming the tensor', () => {
    expect(() => elementCount([1, -1], ref)).toThrow(TensorShapeError);
    expect(() => elementCount([1, -1], ref)).toThrow(
      /input 'input_ids': shape \[1,-1\] has dimension -1/,
    );
    expect(() => elementCount([1.5], ref)).toThrow(TensorShapeError);
  });

  it('refuses huge declared shapes before any allocation', () => {
    expect(() => elementCount([1e9, 1e9], ref)).toThrow(
      new RegExp(`more than ${MAX_TENSOR_ELEMENTS} elements`),
    );
    expect(() => elementCount([2 ** 53, 2], ref)).toThrow(TensorShapeError);
  });
});

describe('raw tensor round trip', () => {
  it.each(Object.keys(SAMPLES) as FixedDatatype[])('%s encodes and decodes losslessly', (dt) => {
    const raw = encodeRawTensor(SAMPLES[dt], dt, ref);
    const decoded = decodeRawTensor(raw, dt, [3], ref) as TypedArray;
    expect(decoded).toHaveLength(3);
    expect(Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength)).toEqual(raw);
    const again = encodeRawTensor(decoded, dt, ref);
    expect(again.equals(raw)).toBe(true);
  });

  it.each(Object.entries(LE_PREFIX))('%s is little-endian on the wire', (dt, bytes) => {
    const raw = encodeRawTensor(SAMPLES[dt as FixedDatatype].slice(0, 2), dt, ref);
    expect([...raw]).toEqual(bytes);
  });

  it('keeps 64-bit integers exact', () => {
    const raw = encodeRawTensor([2n ** 63n - 1n], 'INT64');
    const out = decodeRawTensor(raw, 'INT64', [1]) as BigInt64Array;
    expect(out[0]).toBe(2n ** 63n - 1n);
  });

  it('rejects a size mismatch with the expected byte count in the message', () => {
    const raw = Buffer.alloc(24);
    expect(() => decodeRawTensor(raw, 'INT64', [1, 4], ref)).toThrow(TensorSizeError);
    expect(() => decodeRawTensor(raw, 'INT64', [1, 4], ref)).toThrow(
      "input 'input_ids': raw_input_contents has 24 bytes, expected 32 (shape [1,4] × INT64 8 bytes)",
    );
  });

  it('copies unaligned buffers instead of failing', () => {
    const backing = Buffer.alloc(17);
    const raw = backing.subarray(1);
    raw.writeBigInt64LE(-5n, 0);
    raw.writeBigInt64LE(9n, 8);
    const out = decodeRawTensor(raw, 'INT64', [2]) as BigInt64Array;
    expect([...out]).toEqual([-5n, 9n]);
  });

  it('returns a zero-copy view when aligned', () => {
    const raw = encodeRawTensor([1, 2, 3, 4], 'FP32');
    const out = decodeRawTensor(raw, 'FP32', [4]) as Float32Array;
    raw.writeFloatLE(42, 0);
    expect(out[0]).toBe(42);
  });

  it('rejects unknown datatypes and out-of-range values', () => {
    expect(() => decodeRawTensor(Buffer.alloc(4), 'FLOAT', [1], ref)).toThrow(TensorDatatypeError);
    expect(() => encodeRawTensor([256], 'UINT8', ref)).toThrow(
      /element 0 is 256, expected an integer in the UINT8 range \[0, 255\]/,
    );
    expect(() => encodeRawTensor([1.5], 'INT32', ref)).toThrow(TensorValueError);
    expect(() => encodeRawTensor([2n ** 64n], 'UINT64', ref)).toThrow(TensorValueError);
    expect(() => encodeRawTensor(['x'], 'FP32', ref)).toThrow(TensorValueError);
  });

  it('DataView path (big-endian hosts) produces the same bytes and values', () => {
    for (const dt of Object.keys(SAMPLES) as FixedDatatype[]) {
      const raw = encodeRawTensor(SAMPLES[dt], dt);
      const viaDv = readWithDataView(raw, dt, 3);
      expect(writeWithDataView(viaDv, dt).equals(raw)).toBe(true);
    }
  });
});

describe('BYTES framing', () => {
  it('frames each element with a 4-byte little-endian length', () => {
    const raw = encodeBytesElements(['ab', Buffer.from([0xff]), '']);
    expect([...raw]).toEqual([2, 0, 0, 0, 0x61, 0x62, 1, 0, 0, 0, 0xff, 0, 0, 0, 0]);
    const back = decodeBytesElements(raw, 3);
    expect(back.map((b) => [...b])).toEqual([[0x61, 0x62], [0xff], []]);
  });

  it('round-trips through decodeRawTensor with UTF-8 text', () => {
    const raw = encodeRawTensor(['你好', 'world'], 'BYTES');
    const out = decodeRawTensor(raw, 'BYTES', [2]) as Buffer[];
    expect(out.map((b) => b.toString('utf8'))).toEqual(['你好', 'world']);
  });

  it('rejects truncated elements, missing elements and trailing bytes', () => {
    const good = encodeBytesElements(['abc', 'de']);
    expect(() => decodeRawTensor(good.subarray(0, good.length - 1), 'BYTES', [2], ref)).toThrow(
      /BYTES element 1 declares 2 bytes but only 1 remain/,
    );
    expect(() => decodeRawTensor(good, 'BYTES', [3], ref)).toThrow(TensorError);
    expect(() =>
      decodeRawTensor(Buffer.concat([good, Buffer.from([1])]), 'BYTES', [2], ref),
    ).toThrow(/1 bytes after the 2 BYTES elements/);
  });

  it('refuses a shape with more elements than the buffer could frame', () => {
    expect(() => decodeRawTensor(Buffer.alloc(8), 'BYTES', [1000], ref)).toThrow(TensorSizeError);
  });
});

describe('tensorToRaw / tensorFromRaw', () => {
  it('checks data length against the shape', () => {
    const t = { name: 'x', datatype: 'INT64' as const, shape: [1, 4], data: new BigInt64Array(3) };
    expect(() => tensorToRaw(t)).toThrow("input 'x': has 3 elements, expected 4 (shape [1,4])");
  });

  it('builds a domain tensor from raw bytes', () => {
    const raw = encodeRawTensor([1n, 2n], 'INT64');
    const t = tensorFromRaw('ids', 'INT64', [1, 2], raw, 'output');
    expect(t).toMatchObject({ name: 'ids', datatype: 'INT64', shape: [1, 2] });
    expect([...(t.data as BigInt64Array)]).toEqual([1n, 2n]);
    expect(tensorToRaw(t).equals(raw)).toBe(true);
  });
});

describe('half precision helpers', () => {
  it('converts FP16 exactly for representable values and rounds to nearest even', () => {
    for (const v of [0, 1, -1, 0.5, 65504, 6.103515625e-5, 5.960464477539063e-8]) {
      expect(fromHalfBits(toHalfBits(v))).toBe(v);
    }
    expect(toHalfBits(1e6)).toBe(0x7c00);
    expect(Number.isNaN(fromHalfBits(toHalfBits(NaN)))).toBe(true);
    expect(fromHalfBits(toHalfBits(1 + 2 ** -11))).toBe(1);
  });

  it('converts BF16', () => {
    for (const v of [0, 1, -2, 256, 1.5]) expect(fromBfloat16Bits(toBfloat16Bits(v))).toBe(v);
  });
});
