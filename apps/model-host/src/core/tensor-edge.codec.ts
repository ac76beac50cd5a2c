import {
  decodeRawTensor,
  isKServeDatatype,
  type FixedDatatype,
  type Tensor,
  type TypedArray,
} from '@mesh/kserve';
import type { HostTensor, OutputTensor } from './inference.types';
import { InvalidInferenceError } from './model-host.errors';

/** Checks a wire datatype name: known, and not BYTES (no ONNX model here takes strings). */
export function fixedDatatype(name: string, datatype: string): FixedDatatype {
  if (!isKServeDatatype(datatype)) {
    throw new InvalidInferenceError(`input '${name}': unknown datatype '${datatype}'`);
  }
  if (datatype === 'BYTES') {
    throw new InvalidInferenceError(
      `input '${name}': datatype BYTES is not supported by the embedded host`,
    );
  }
  return datatype;
}

/** A codec tensor (typed array data) → host tensor (little-endian bytes, no copy). */
export function toHostTensor(t: Tensor): HostTensor {
  const datatype = fixedDatatype(t.name, t.datatype);
  const data = t.data as TypedArray;
  return {
    name: t.name,
    datatype,
    shape: t.shape,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

/** A result tensor → codec tensor, for transports that send typed values (JSON, contents). */
export function toCodecTensor(t: OutputTensor): Tensor {
  const buf = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return {
    name: t.name,
    datatype: t.datatype,
    shape: t.shape,
    data: decodeRawTensor(buf, t.datatype, t.shape, { role: 'output', name: t.name }),
  };
}
