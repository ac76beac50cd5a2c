import { ELEMENT_BYTES, formatShape } from '@mesh/kserve';
import type { HostTensor } from './inference.types';
import { InvalidInferenceError } from './model-host.errors';
import { fullDims, type ModelVersionSpec } from './model-spec';

const WHY = 'a request without an inference header (Inference-Header-Content-Length: 0)';

/**
 * Triton's raw binary request: the whole body is the data of the model's only input, whose
 * shape follows from the byte count (at most one variable dimension; batch 1 when batching).
 */
export function rawBinaryInput(spec: ModelVersionSpec, data: Uint8Array): HostTensor {
  const [input, ...others] = spec.inputs;
  if (!input || others.length > 0) {
    throw new InvalidInferenceError(
      `${WHY} needs a model with exactly one input; model '${spec.model}' has ${spec.inputs.length} (${spec.inputs.map((i) => i.name).join(', ')})`,
    );
  }
  const variable = input.dims.filter((d) => d < 0).length;
  if (variable > 1) {
    throw new InvalidInferenceError(
      `${WHY} needs at most one variable dimension; input '${input.name}' is ${formatShape(fullDims(spec, input))}`,
    );
  }
  const unit = ELEMENT_BYTES[input.datatype] * input.dims.reduce((a, d) => (d < 0 ? a : a * d), 1);
  if (data.byteLength === 0 || data.byteLength % unit !== 0) {
    throw new InvalidInferenceError(
      `${WHY}: ${data.byteLength} bytes are not a whole number of input '${input.name}' rows (${unit} bytes each)`,
    );
  }
  const dims = input.dims.map((d) => (d < 0 ? data.byteLength / unit : d));
  return {
    name: input.name,
    datatype: input.datatype,
    shape: spec.maxBatchSize > 0 ? [1, ...dims] : dims,
    data,
  };
}
