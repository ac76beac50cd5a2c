import { formatShape } from '@mesh/kserve';
import type { HostTensor } from './inference.types';
import { InvalidInferenceError } from './model-host.errors';
import type { InputBounds, TableBound } from './model-spec';

/** Flat element index → `[i,j,...]` in `shape`. */
function position(flat: number, shape: number[]): string {
  const at: number[] = [];
  for (let axis = shape.length - 1; axis >= 0; axis -= 1) {
    const d = shape[axis] ?? 1;
    at.unshift(flat % d);
    flat = Math.floor(flat / d);
  }
  return `[${at.join(',')}]`;
}

/**
 * The first element of a little-endian INT64/INT32 tensor outside 0..rows-1, or undefined. Reads
 * INT64 as two 32-bit words: in range exactly when the high word is 0 and the low one < rows
 * (rows always fits 32 bits), so no BigInt is made per element.
 */
function firstOutOfRange(t: HostTensor, rows: number): { at: number; value: bigint } | undefined {
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  if (t.datatype === 'INT64') {
    for (let k = 0; k * 8 < t.data.byteLength; k += 1) {
      if (view.getUint32(k * 8 + 4, true) !== 0 || view.getUint32(k * 8, true) >= rows)
        return { at: k, value: view.getBigInt64(k * 8, true) };
    }
  } else if (t.datatype === 'INT32') {
    for (let k = 0; k * 4 < t.data.byteLength; k += 1) {
      const v = view.getInt32(k * 4, true);
      if (v < 0 || v >= rows) return { at: k, value: BigInt(v) };
    }
  }
  return undefined;
}

function checkIds(t: HostTensor, bound: TableBound): void {
  const bad = firstOutOfRange(t, bound.rows);
  if (!bad) return;
  throw new InvalidInferenceError(
    `input '${t.name}' holds ${bad.value} at ${position(bad.at, t.shape)}; the model's ` +
      `${bound.table} has ${bound.rows} rows (valid ids 0..${bound.rows - 1})`,
  );
}

/**
 * Refuses client input the model's tables cannot take — ids past an embedding table, sequences
 * longer than the position table — before ORT runs (where it would fail the whole batch).
 * `inputs` have already passed the shape and datatype checks.
 */
export function checkInputBounds(bounds: InputBounds | undefined, inputs: HostTensor[]): void {
  if (!bounds) return;
  const seq = bounds.sequence;
  const seqInput = seq && inputs.find((t) => t.name === seq.input);
  const length = seqInput?.shape[seqInput.shape.length - 1];
  if (seq && seqInput && length !== undefined && length > seq.rows) {
    throw new InvalidInferenceError(
      `input '${seqInput.name}' has ${length} positions along its last dimension ` +
        `(shape ${formatShape(seqInput.shape)}); the model's ${seq.table} has ${seq.rows} rows ` +
        `(at most ${seq.rows} positions)`,
    );
  }
  for (const group of bounds.sameSize ?? []) checkSameSize(group, inputs);
  for (const t of inputs) {
    const bound = bounds.ids[t.name];
    if (bound) checkIds(t, bound);
  }
}

function checkSameSize(
  group: NonNullable<InputBounds['sameSize']>[number],
  inputs: HostTensor[],
): void {
  let first: { name: string; axis: number; size: number } | undefined;
  for (const m of group.members) {
    const t = inputs.find((x) => x.name === m.input);
    const size = t?.shape[m.axis];
    if (t === undefined || size === undefined) continue;
    if (first === undefined) first = { name: t.name, axis: m.axis, size };
    else if (size !== first.size) {
      throw new InvalidInferenceError(
        `input '${t.name}' has ${size} along dimension ${m.axis} (shape ${formatShape(t.shape)}) ` +
          `but input '${first.name}' has ${first.size} along dimension ${first.axis}; the model ` +
          `names both '${group.dim}', so they must be equal`,
      );
    }
  }
}
