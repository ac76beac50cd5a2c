import { endianness } from 'node:os';
import type { EncodedBatch, Int64Tensor } from './preprocessing.types';

/**
 * The tensor's bytes as KServe `raw_input_contents` wants them (little-endian INT64,
 * row-major). Zero-copy on little-endian hosts.
 */
export function int64TensorBytes(tensor: Int64Tensor): Buffer {
  const { data } = tensor;
  if (endianness() === 'LE') return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out = Buffer.allocUnsafe(data.byteLength);
  data.forEach((v, i) => out.writeBigInt64LE(v, i * 8));
  return out;
}

/**
 * The tensors the model takes, named as in its manifest: [ids, mask, typeIds], or [ids, mask]
 * when the manifest names no token type input.
 */
export function batchTensors(batch: EncodedBatch): Int64Tensor[] {
  return batch.tensors;
}
