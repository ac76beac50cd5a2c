import { OutputShapeError } from './preprocessing.errors';
import type { EncodedBatch, Int64Tensor, OutputTensor } from './preprocessing.types';

type Role = 'ids' | 'mask' | 'types';

/**
 * Several encoded batches of one model version as one: rows concatenated in order, each
 * padded to the longest sequence among them (pad id in input ids, 0 in mask and type ids, as
 * the encoder pads). Padding positions are masked, so each row's answer is the one it gets on
 * its own; `splitOutput` undoes the merge on the model's output.
 */
export function mergeBatches(batches: readonly EncodedBatch[], padId: number): EncodedBatch {
  const first = batches[0];
  if (!first) throw new RangeError('mergeBatches needs at least one batch');
  if (batches.length === 1) return first;
  const seq = batches.reduce((m, b) => Math.max(m, b.seqLength), 0);
  const rows = batches.reduce((n, b) => n + b.batchSize, 0);
  const shape: [number, number] = [rows, seq];
  const merged = (role: Role, like: Int64Tensor): Int64Tensor => {
    const data = new BigInt64Array(rows * seq);
    if (role === 'ids' && padId !== 0) data.fill(BigInt(padId));
    let row = 0;
    for (const b of batches) {
      const src = tensorOf(b, role).data;
      if (b.seqLength === seq) data.set(src, row * seq);
      else {
        for (let r = 0; r < b.batchSize; r++) {
          data.set(src.subarray(r * b.seqLength, (r + 1) * b.seqLength), (row + r) * seq);
        }
      }
      row += b.batchSize;
    }
    return { name: like.name, datatype: 'INT64', shape, data };
  };
  const inputIds = merged('ids', first.inputIds);
  const attentionMask = merged('mask', first.attentionMask);
  const tokenTypeIds = merged('types', first.tokenTypeIds);
  const byRole = { ids: inputIds, mask: attentionMask, types: tokenTypeIds };
  const tokenCounts = new Int32Array(rows);
  let at = 0;
  for (const b of batches) {
    tokenCounts.set(b.tokenCounts, at);
    at += b.batchSize;
  }
  return {
    batchSize: rows,
    seqLength: seq,
    inputIds,
    attentionMask,
    tokenTypeIds,
    tensors: first.tensors.map((t) => byRole[roleOf(first, t)]),
    tokenCounts,
    truncated: batches.flatMap((b) => b.truncated),
  };
}

/**
 * The part of a merged call's output that belongs to each batch, in order. Outputs with a
 * sequence axis ([rows, seq, hidden]) are cut back to each batch's own length, so its
 * postprocessing sees exactly the shape it would have got alone.
 */
export function splitOutput(
  output: OutputTensor,
  batches: readonly EncodedBatch[],
): OutputTensor[] {
  if (batches.length === 1) return [output];
  const rows = batches.reduce((n, b) => n + b.batchSize, 0);
  const seq = batches.reduce((m, b) => Math.max(m, b.seqLength), 0);
  const [outRows, ...rest] = output.shape;
  const perRow = rest.reduce((n, d) => n * d, 1);
  if (outRows !== rows || output.data.length !== rows * perRow) {
    throw new OutputShapeError(
      `output of shape [${output.shape.join(', ')}] does not fit ${rows} merged rows`,
    );
  }
  const hasSeqAxis = rest.length >= 2 && rest[0] === seq;
  const inner = hasSeqAxis ? perRow / seq : 0;
  const out: OutputTensor[] = [];
  let row = 0;
  for (const b of batches) {
    if (!hasSeqAxis || b.seqLength === seq) {
      out.push({
        shape: [b.batchSize, ...rest],
        data: output.data.subarray(row * perRow, (row + b.batchSize) * perRow),
      });
    } else {
      const data = new Float32Array(b.batchSize * b.seqLength * inner);
      for (let r = 0; r < b.batchSize; r++) {
        const from = (row + r) * perRow;
        data.set(output.data.subarray(from, from + b.seqLength * inner), r * b.seqLength * inner);
      }
      out.push({ shape: [b.batchSize, b.seqLength, ...rest.slice(1)], data });
    }
    row += b.batchSize;
  }
  return out;
}

function tensorOf(b: EncodedBatch, role: Role): Int64Tensor {
  return role === 'ids' ? b.inputIds : role === 'mask' ? b.attentionMask : b.tokenTypeIds;
}

function roleOf(b: EncodedBatch, t: Int64Tensor): Role {
  return t === b.inputIds ? 'ids' : t === b.attentionMask ? 'mask' : 'types';
}
