import { encodeBytesElements, type FixedDatatype } from '@mesh/kserve';
import type { OutputTensor } from './inference.types';
import { InvalidInferenceError } from './model-host.errors';

type Reader = (view: DataView, offset: number) => number | bigint;

/** The datatypes Triton ranks (its TopkClassifications); FP16, BF16 and BOOL it refuses. */
const READERS: Partial<Record<FixedDatatype, { size: number; read: Reader; float: boolean }>> = {
  UINT8: { size: 1, read: (v, o) => v.getUint8(o), float: false },
  UINT16: { size: 2, read: (v, o) => v.getUint16(o, true), float: false },
  UINT32: { size: 4, read: (v, o) => v.getUint32(o, true), float: false },
  UINT64: { size: 8, read: (v, o) => v.getBigUint64(o, true), float: false },
  INT8: { size: 1, read: (v, o) => v.getInt8(o), float: false },
  INT16: { size: 2, read: (v, o) => v.getInt16(o, true), float: false },
  INT32: { size: 4, read: (v, o) => v.getInt32(o, true), float: false },
  INT64: { size: 8, read: (v, o) => v.getBigInt64(o, true), float: false },
  FP32: { size: 4, read: (v, o) => v.getFloat32(o, true), float: true },
  FP64: { size: 8, read: (v, o) => v.getFloat64(o, true), float: true },
};

/** Checks a classification request against the output's datatype before the request runs. */
export function checkClassifiable(output: string, datatype: FixedDatatype, count: number): void {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new InvalidInferenceError(
      `output '${output}': parameter 'classification' must be an integer >= 1 (got ${count})`,
    );
  }
  if (!READERS[datatype]) {
    throw new InvalidInferenceError(
      `output '${output}': class result not available for datatype ${datatype}`,
    );
  }
}

/** C's `std::to_string`: six decimals for floating point, plain digits for integers. */
const format = (value: number | bigint, float: boolean): string =>
  float ? (value as number).toFixed(6) : value.toString();

/**
 * Triton's classification extension: per batch row, the `count` highest elements of the output
 * as "value:index[:label]" strings, highest first (ties by index), in a BYTES tensor of shape
 * [batch, k] (or [k] without a batch dimension), k = min(count, elements per row).
 */
export function classifyOutput(
  t: OutputTensor,
  count: number,
  batched: boolean,
  labels: readonly string[] | undefined,
): OutputTensor {
  const reader = READERS[t.datatype as FixedDatatype];
  if (!reader) throw new InvalidInferenceError(`output '${t.name}': not classifiable`);
  const rows = batched ? (t.shape[0] ?? 1) : 1;
  const total = t.data.byteLength / reader.size;
  const perRow = rows > 0 ? total / rows : 0;
  const k = Math.min(count, perRow);
  const view = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const strings: string[] = [];
  for (let r = 0; r < rows; r++) {
    const values = Array.from({ length: perRow }, (_, i) =>
      reader.read(view, (r * perRow + i) * reader.size),
    );
    const order = values
      .map((_, i) => i)
      .sort((a, b) => {
        const va = values[a]!;
        const vb = values[b]!;
        return va > vb ? -1 : va < vb ? 1 : a - b;
      });
    for (const i of order.slice(0, k)) {
      const label = labels?.[i];
      strings.push(
        `${format(values[i]!, reader.float)}:${i}${label === undefined ? '' : `:${label}`}`,
      );
    }
  }
  const data = encodeBytesElements(strings);
  return {
    name: t.name,
    datatype: 'BYTES',
    shape: batched ? [rows, k] : [k],
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}
