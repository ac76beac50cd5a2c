import { contentsToTypedArray, typedArrayToContents } from './tensor-contents.codec';
import { TensorDatatypeError, TensorSizeError, TensorValueError } from './tensor.errors';

const ref = { role: 'input' as const, name: 'attention_mask' };

describe('contentsToTypedArray', () => {
  it('reads each datatype from its typed field', () => {
    expect([
      ...(contentsToTypedArray({ int64_contents: [1, '2', -3] }, 'INT64', [3]) as BigInt64Array),
    ]).toEqual([1n, 2n, -3n]);
    expect([
      ...(contentsToTypedArray({ int_contents: [-1, 2] }, 'INT8', [2]) as Int8Array),
    ]).toEqual([-1, 2]);
    expect([
      ...(contentsToTypedArray({ uint_contents: [65535] }, 'UINT16', [1]) as Uint16Array),
    ]).toEqual([65535]);
    expect([
      ...(contentsToTypedArray(
        { uint64_contents: ['18446744073709551615'] },
        'UINT64',
        [1],
      ) as BigUint64Array),
    ]).toEqual([2n ** 64n - 1n]);
    expect([
      ...(contentsToTypedArray({ fp32_contents: [0.5, 2] }, 'FP32', [1, 2]) as Float32Array),
    ]).toEqual([0.5, 2]);
    expect([
      ...(contentsToTypedArray({ fp64_contents: [Math.PI] }, 'FP64', [1]) as Float64Array),
    ]).toEqual([Math.PI]);
    expect([
      ...(contentsToTypedArray({ bool_contents: [true, false] }, 'BOOL', [2]) as Uint8Array),
    ]).toEqual([1, 0]);
    const bytes = contentsToTypedArray(
      { bytes_contents: [Buffer.from('hi')] },
      'BYTES',
      [1],
    ) as Buffer[];
    expect(bytes[0]?.toString()).toBe('hi');
  });

  it('accepts Long-like 64-bit values', () => {
    const longLike = { low: 5, high: 0, toString: () => '5' };
    expect([
      ...(contentsToTypedArray(
        { int64_contents: [longLike as unknown as number] },
        'INT64',
        [1],
      ) as BigInt64Array),
    ]).toEqual([5n]);
  });

  it('rejects a count that does not match the shape, naming field and tensor', () => {
    expect(() => contentsToTypedArray({ int64_contents: [1, 2, 3] }, 'INT64', [1, 4], ref)).toThrow(
      TensorSizeError,
    );
    expect(() => contentsToTypedArray({ int64_contents: [1, 2, 3] }, 'INT64', [1, 4], ref)).toThrow(
      "input 'attention_mask': contents.int64_contents has 3 elements, expected 4 (shape [1,4])",
    );
    expect(() => contentsToTypedArray(null, 'FP32', [2], ref)).toThrow(
      /fp32_contents has 0 elements/,
    );
  });

  it('rejects values outside the narrower datatype range', () => {
    expect(() => contentsToTypedArray({ int_contents: [200] }, 'INT8', [1], ref)).toThrow(
      TensorValueError,
    );
  });

  it('points FP16 callers at raw contents', () => {
    expect(() => contentsToTypedArray({}, 'FP16', [1], ref)).toThrow(TensorDatatypeError);
    expect(() => contentsToTypedArray({}, 'FP16', [1], ref)).toThrow(/raw_input_contents/);
  });
});

describe('typedArrayToContents', () => {
  it('fills only the matching field and keeps 64-bit values exact', () => {
    expect(typedArrayToContents(new Float32Array([1.5]), 'FP32')).toEqual({ fp32_contents: [1.5] });
    expect(typedArrayToContents(new BigInt64Array([2n ** 62n, 3n]), 'INT64')).toEqual({
      int64_contents: ['4611686018427387904', 3],
    });
    expect(typedArrayToContents(new Uint8Array([1, 0]), 'BOOL')).toEqual({
      bool_contents: [true, false],
    });
  });

  it('round-trips through contentsToTypedArray', () => {
    const data = new Int32Array([-7, 8]);
    const back = contentsToTypedArray(typedArrayToContents(data, 'INT32'), 'INT32', [2]);
    expect([...(back as Int32Array)]).toEqual([-7, 8]);
  });
});
