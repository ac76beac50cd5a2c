import { mergeBatches, splitOutput } from './encoded-batch-merge';
import type { EncodedBatch, Int64Tensor } from './preprocessing.types';

/** A batch of rows given as token ids (no padding inside a row), padded to `seq`. */
function batch(rows: number[][], seq: number, withTypes = true): EncodedBatch {
  const t = (name: string, f: (row: number[], k: number) => number): Int64Tensor => ({
    name,
    datatype: 'INT64',
    shape: [rows.length, seq],
    data: BigInt64Array.from(
      rows.flatMap((row) =>
        Array.from({ length: seq }, (_, k) => BigInt(k < row.length ? f(row, k) : 0)),
      ),
    ),
  });
  const inputIds = t('input_ids', (row, k) => row[k]!);
  const attentionMask = t('attention_mask', () => 1);
  const tokenTypeIds = t('token_type_ids', () => 0);
  return {
    batchSize: rows.length,
    seqLength: seq,
    inputIds,
    attentionMask,
    tokenTypeIds,
    tensors: withTypes ? [inputIds, attentionMask, tokenTypeIds] : [inputIds, attentionMask],
    tokenCounts: Int32Array.from(rows.map((r) => r.length)),
    truncated: rows.map(() => false),
  };
}

const rowsOf = (t: Int64Tensor) => {
  const [n, s] = t.shape;
  return Array.from({ length: n }, (_, r) =>
    Array.from(t.data.subarray(r * s, (r + 1) * s), Number),
  );
};

describe('mergeBatches', () => {
  it('concatenates rows in order, padding each to the longest (pad id in ids, 0 in mask)', () => {
    const m = mergeBatches([batch([[101, 7, 102]], 3), batch([[101, 8, 9, 102]], 4)], 5);
    expect(m.batchSize).toBe(2);
    expect(m.seqLength).toBe(4);
    expect(m.inputIds.shape).toEqual([2, 4]);
    expect(rowsOf(m.inputIds)).toEqual([
      [101, 7, 102, 5],
      [101, 8, 9, 102],
    ]);
    expect(rowsOf(m.attentionMask)).toEqual([
      [1, 1, 1, 0],
      [1, 1, 1, 1],
    ]);
    expect(Array.from(m.tokenCounts)).toEqual([3, 4]);
    expect(m.tensors.map((t) => t.name)).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
  });

  it('keeps the tensors the model takes (no type ids when it names none)', () => {
    const m = mergeBatches([batch([[1]], 1, false), batch([[2]], 1, false)], 0);
    expect(m.tensors.map((t) => t.name)).toEqual(['input_ids', 'attention_mask']);
    expect(m.tensors[0]).toBe(m.inputIds);
  });

  it('returns a lone batch as it is', () => {
    const b = batch([[1, 2]], 2);
    expect(mergeBatches([b], 0)).toBe(b);
  });
});

describe('splitOutput', () => {
  it('gives each batch its own rows of a [rows, labels] output', () => {
    const parts = [batch([[1], [2]], 1), batch([[3]], 1)];
    const out = splitOutput({ shape: [3, 2], data: Float32Array.from([1, 2, 3, 4, 5, 6]) }, parts);
    expect(out.map((o) => [o.shape, Array.from(o.data)])).toEqual([
      [
        [2, 2],
        [1, 2, 3, 4],
      ],
      [
        [1, 2],
        [5, 6],
      ],
    ]);
  });

  it('cuts a [rows, seq, hidden] output back to each batch’s own length', () => {
    const parts = [batch([[1]], 1), batch([[2, 3]], 2)];
    // merged seq 2, hidden 2: row 0 = positions (10,11) (12,13); row 1 = (20,21) (22,23)
    const data = Float32Array.from([10, 11, 12, 13, 20, 21, 22, 23]);
    const out = splitOutput({ shape: [2, 2, 2], data }, parts);
    expect(out[0]!.shape).toEqual([1, 1, 2]);
    expect(Array.from(out[0]!.data)).toEqual([10, 11]);
    expect(out[1]!.shape).toEqual([1, 2, 2]);
    expect(Array.from(out[1]!.data)).toEqual([20, 21, 22, 23]);
  });

  it('refuses an output whose rows do not match the merged batches', () => {
    const parts = [batch([[1]], 1), batch([[2]], 1)];
    expect(() => splitOutput({ shape: [3, 2], data: new Float32Array(6) }, parts)).toThrow(
      /does not fit 2 merged rows/,
    );
  });
});
