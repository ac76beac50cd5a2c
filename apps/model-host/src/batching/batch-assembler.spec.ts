import type { HostTensor } from '../core/inference.types';
import { assembleBatch, splitOutput } from './batch-assembler';

const i64 = (name: string, shape: number[], values: number[]): HostTensor => {
  const arr = BigInt64Array.from(values.map(BigInt));
  return { name, datatype: 'INT64', shape, data: new Uint8Array(arr.buffer) };
};
const f32 = (name: string, shape: number[], values: number[]): HostTensor => {
  const arr = Float32Array.from(values);
  return { name, datatype: 'FP32', shape, data: new Uint8Array(arr.buffer) };
};
const ints = (buf: ArrayBuffer) => [...new BigInt64Array(buf)].map(Number);
const floats = (t: HostTensor) => [
  ...new Float32Array(t.data.buffer, t.data.byteOffset, t.data.byteLength / 4),
];

describe('assembleBatch', () => {
  it('concatenates along the batch axis and pads shorter sequences with 0', () => {
    const { inputs, layout } = assembleBatch([
      [i64('input_ids', [1, 2], [5, 6]), i64('attention_mask', [1, 2], [1, 1])],
      [
        i64('input_ids', [2, 3], [7, 8, 9, 10, 11, 12]),
        i64('attention_mask', [2, 3], [1, 1, 1, 1, 1, 1]),
      ],
    ]);
    expect(inputs[0]?.shape).toEqual([3, 3]);
    expect(ints(inputs[0]!.buffer)).toEqual([5, 6, 0, 7, 8, 9, 10, 11, 12]);
    expect(ints(inputs[1]!.buffer)).toEqual([1, 1, 0, 1, 1, 1, 1, 1, 1]);
    expect(layout.rows).toEqual([1, 2]);
    expect(layout.paddedAxes.get(1)).toBe(3);
    expect(layout.lengths[0]?.get(1)).toBe(2);
  });

  it('copies without padding when every request has the same shape', () => {
    const { inputs, layout } = assembleBatch([
      [i64('x', [1, 2], [1, 2])],
      [i64('x', [1, 2], [3, 4])],
    ]);
    expect(ints(inputs[0]!.buffer)).toEqual([1, 2, 3, 4]);
    expect(layout.paddedAxes.size).toBe(0);
  });

  it('pads inner axes of rank-3 inputs', () => {
    const { inputs } = assembleBatch([
      [i64('x', [1, 1, 2], [1, 2])],
      [i64('x', [1, 2, 1], [3, 4])],
    ]);
    expect(inputs[0]?.shape).toEqual([2, 2, 2]);
    expect(ints(inputs[0]!.buffer)).toEqual([1, 2, 0, 0, 3, 0, 4, 0]);
  });
});

describe('splitOutput', () => {
  it('gives each request its rows of a [batch, labels] output', () => {
    const { layout } = assembleBatch([
      [i64('x', [1, 2], [1, 2])],
      [i64('x', [2, 2], [1, 2, 3, 4])],
    ]);
    const out = f32('logits', [3, 2], [1, 2, 3, 4, 5, 6]);
    expect(floats(splitOutput(out, layout, 0, new Set()))).toEqual([1, 2]);
    const second = splitOutput(out, layout, 1, new Set());
    expect(second.shape).toEqual([2, 2]);
    expect(floats(second)).toEqual([3, 4, 5, 6]);
  });

  it('trims a sequence axis padded by the batch back to the request length', () => {
    const { layout } = assembleBatch([[i64('x', [1, 1], [1])], [i64('x', [1, 3], [1, 2, 3])]]);
    // last_hidden_state [batch=2, seq=3, hidden=2]
    const out = f32('h', [2, 3, 2], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const first = splitOutput(out, layout, 0, new Set([1]));
    expect(first.shape).toEqual([1, 1, 2]);
    expect(floats(first)).toEqual([1, 2]);
    const second = splitOutput(out, layout, 1, new Set([1]));
    expect(second.shape).toEqual([1, 3, 2]);
    expect(floats(second)).toEqual([7, 8, 9, 10, 11, 12]);
  });

  it('leaves an axis alone when the config declares it fixed', () => {
    const { layout } = assembleBatch([[i64('x', [1, 1], [1])], [i64('x', [1, 3], [1, 2, 3])]]);
    const out = f32('h', [2, 3], [1, 2, 3, 4, 5, 6]);
    expect(splitOutput(out, layout, 0, new Set()).shape).toEqual([1, 3]);
  });
});
