import { ELEMENT_BYTES } from '@mesh/kserve';
import { ORT_TYPE_OF } from '@mesh/model-repository';
import type { HostTensor } from '../core/inference.types';
import type { WireTensor } from '../execution/ort-worker-protocol';

/** One input of a batch: the padded, concatenated bytes and its batched shape. */
export interface AssembledInput {
  name: string;
  datatype: HostTensor['datatype'];
  shape: number[];
  buffer: ArrayBuffer;
}

/** Assembled inputs as a session's feeds: ORT's type names; the buffers move to the worker. */
export function feedsOf(inputs: readonly AssembledInput[]): WireTensor[] {
  return inputs.map((i) => ({
    name: i.name,
    type: ORT_TYPE_OF[i.datatype],
    dims: i.shape,
    buffer: i.buffer,
  }));
}

/** Per axis (after the batch axis), each request's own length where the batch padded it. */
export interface BatchLayout {
  rows: number[];
  /** paddedAxes[axis] = the batch's padded length; lengths[i][axis] = request i's length. */
  paddedAxes: Map<number, number>;
  lengths: Map<number, number>[];
}

/**
 * Copies `src` (shape `from`) into the zero-filled `dst` (shape `to`, same rank, every dim
 * >= the source's) at row offset `rowOffset`. Padding cells stay 0 — the pad value of
 * token ids and the "masked" value of attention_mask.
 */
function copyPadded(
  src: Uint8Array,
  from: readonly number[],
  dst: Uint8Array,
  to: readonly number[],
  rowOffset: number,
  elemBytes: number,
): void {
  const rank = from.length;
  const innerSrc = (from[rank - 1] ?? 1) * elemBytes;
  if (rank <= 1 || from.every((d, i) => i === 0 || d === to[i])) {
    const rowBytes = from.slice(1).reduce((a, b) => a * b, 1) * elemBytes;
    dst.set(src.subarray(0, rowBytes * (from[0] ?? 1)), rowOffset * rowBytes);
    return;
  }
  // Strides of the destination per axis, in bytes.
  const dstStride: number[] = new Array<number>(rank).fill(elemBytes);
  for (let a = rank - 2; a >= 0; a--) dstStride[a] = (dstStride[a + 1] ?? 0) * (to[a + 1] ?? 1);
  const outer = from.slice(0, rank - 1);
  const idx = new Array<number>(rank - 1).fill(0);
  const total = outer.reduce((a, b) => a * b, 1);
  for (let n = 0; n < total; n++) {
    let off = 0;
    for (let a = 0; a < rank - 1; a++) {
      off += ((a === 0 ? rowOffset : 0) + (idx[a] ?? 0)) * (dstStride[a] ?? 0);
    }
    dst.set(src.subarray(n * innerSrc, (n + 1) * innerSrc), off);
    for (let a = rank - 2; a >= 0; a--) {
      idx[a] = (idx[a] ?? 0) + 1;
      if ((idx[a] ?? 0) < (outer[a] ?? 0)) break;
      idx[a] = 0;
    }
  }
}

/**
 * Concatenates the requests' inputs along the batch axis, padding variable-length axes to the
 * batch's longest. `requests[i]` holds request i's tensors in model input order.
 */
export function assembleBatch(requests: HostTensor[][]): {
  inputs: AssembledInput[];
  layout: BatchLayout;
} {
  const first = requests[0];
  if (!first) throw new Error('empty batch');
  const layout: BatchLayout = {
    rows: requests.map((r) => r[0]?.shape[0] ?? 1),
    paddedAxes: new Map(),
    lengths: requests.map(() => new Map<number, number>()),
  };
  const inputs = first.map((proto, k) => {
    const shapes = requests.map((r) => r[k]?.shape ?? []);
    const to = proto.shape.map((_, a) =>
      a === 0
        ? shapes.reduce((s, sh) => s + (sh[0] ?? 0), 0)
        : Math.max(...shapes.map((sh) => sh[a] ?? 0)),
    );
    for (let a = 1; a < to.length; a++) {
      if (shapes.some((sh) => sh[a] !== to[a])) {
        layout.paddedAxes.set(a, to[a] ?? 0);
        shapes.forEach((sh, i) => layout.lengths[i]?.set(a, sh[a] ?? 0));
      }
    }
    const elem = ELEMENT_BYTES[proto.datatype];
    const buffer = new ArrayBuffer(to.reduce((a, b) => a * b, 1) * elem);
    const dst = new Uint8Array(buffer);
    let row = 0;
    requests.forEach((r, i) => {
      const t = r[k];
      if (!t) return;
      copyPadded(t.data, t.shape, dst, to, row, elem);
      row += layout.rows[i] ?? 0;
    });
    return { name: proto.name, datatype: proto.datatype, shape: to, buffer };
  });
  return { inputs, layout };
}

/**
 * Cuts request `index`'s slice out of a batched output: its rows, and along every axis the
 * batch padded (and the output has at that position with the padded length), its own length.
 */
export function splitOutput(
  output: HostTensor,
  layout: BatchLayout,
  index: number,
  trimmableAxes: ReadonlySet<number>,
): HostTensor {
  const elem = ELEMENT_BYTES[output.datatype];
  const rowOffset = layout.rows.slice(0, index).reduce((a, b) => a + b, 0);
  const rows = layout.rows[index] ?? 1;
  const shape = output.shape.map((d, a) => {
    if (a === 0) return rows;
    const padded = layout.paddedAxes.get(a);
    const own = layout.lengths[index]?.get(a);
    return trimmableAxes.has(a) && padded === d && own !== undefined ? own : d;
  });
  const full = output.shape.slice(1);
  const own = shape.slice(1);
  const rowBytes = full.reduce((a, b) => a * b, 1) * elem;
  const rowsBytes = output.data.subarray(rowOffset * rowBytes, (rowOffset + rows) * rowBytes);
  if (own.every((d, i) => d === full[i])) {
    return { ...output, shape, data: rowsBytes.slice() };
  }
  const data = new Uint8Array(shape.reduce((a, b) => a * b, 1) * elem);
  // Gather: walk the trimmed shape and copy last-axis runs from the padded layout.
  const rank = shape.length;
  const srcShape = [rows, ...full];
  const srcStride = new Array<number>(rank).fill(elem);
  for (let a = rank - 2; a >= 0; a--)
    srcStride[a] = (srcStride[a + 1] ?? 0) * (srcShape[a + 1] ?? 1);
  const inner = (shape[rank - 1] ?? 1) * elem;
  const outer = shape.slice(0, rank - 1);
  const total = outer.reduce((a, b) => a * b, 1);
  const idx = new Array<number>(rank - 1).fill(0);
  for (let n = 0; n < total; n++) {
    let off = 0;
    for (let a = 0; a < rank - 1; a++) off += (idx[a] ?? 0) * (srcStride[a] ?? 0);
    data.set(rowsBytes.subarray(off, off + inner), n * inner);
    for (let a = rank - 2; a >= 0; a--) {
      idx[a] = (idx[a] ?? 0) + 1;
      if ((idx[a] ?? 0) < (outer[a] ?? 0)) break;
      idx[a] = 0;
    }
  }
  return { ...output, shape, data };
}
