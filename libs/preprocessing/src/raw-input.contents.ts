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

/** The batch's three tensors in the order [ids, mask, typeIds]. */
export function batchTensors(batch: EncodedBatch): [Int64Tensor, Int64Tensor, Int64Tensor] {
  return [batch.inputIds, batch.attentionMask, batch.tokenTypeIds];
}
