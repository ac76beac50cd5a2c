import {
  contentsToTypedArray,
  inferParameterValue,
  type InferParameter,
  type ModelInferRequest,
  type ModelInferResponse,
} from '@mesh/kserve';
import type { HostTensor, InferRequest, InferResponse } from '../core/inference.types';
import { InvalidInferenceError } from '../core/model-host.errors';
import { fixedDatatype, toHostTensor } from '../core/tensor-edge.codec';

function intParam(params: Record<string, InferParameter> | undefined, key: string): number {
  const v = inferParameterValue(params?.[key]);
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new InvalidInferenceError(
      `parameter '${key}' must be an integer >= 0 (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

/** ModelInferRequest (proto) → InferRequest. Tensor bytes stay where protobuf put them. */
export function fromInferMessage(msg: ModelInferRequest): InferRequest {
  const raw = msg.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== msg.inputs.length) {
    throw new InvalidInferenceError(
      `raw_input_contents has ${raw.length} entries but the request has ${msg.inputs.length} inputs; give one per input in order`,
    );
  }
  const inputs = msg.inputs.map((t, i): HostTensor => {
    const shape = t.shape.map(Number);
    const buf = raw[i];
    if (buf !== undefined) {
      if (t.contents && Object.values(t.contents).some((v) => Array.isArray(v) && v.length > 0)) {
        throw new InvalidInferenceError(
          `input '${t.name}': give its data either in contents or in raw_input_contents, not both`,
        );
      }
      return { name: t.name, datatype: fixedDatatype(t.name, t.datatype), shape, data: buf };
    }
    fixedDatatype(t.name, t.datatype);
    const ref = { role: 'input' as const, name: t.name };
    const data = contentsToTypedArray(t.contents, t.datatype, shape, ref);
    return toHostTensor({
      name: t.name,
      datatype: t.datatype as HostTensor['datatype'],
      shape,
      data,
    });
  });
  const classification: Record<string, number> = {};
  for (const o of msg.outputs ?? []) {
    for (const key of Object.keys(o.parameters ?? {})) {
      if (key !== 'classification') {
        throw new InvalidInferenceError(
          `output '${o.name}': unsupported parameter '${key}' (the host takes 'classification')`,
        );
      }
      classification[o.name] = classCount(o.name, inferParameterValue(o.parameters?.[key]));
    }
  }
  return {
    id: msg.id ?? '',
    model: msg.model_name,
    version: msg.model_version ?? '',
    inputs,
    outputs: (msg.outputs ?? []).map((o) => o.name),
    ...(Object.keys(classification).length > 0 ? { classification } : {}),
    priority: intParam(msg.parameters, 'priority'),
    timeoutUs: intParam(msg.parameters, 'timeout'),
  };
}

function classCount(output: string, v: boolean | number | string | undefined): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw new InvalidInferenceError(
      `output '${output}': parameter 'classification' must be an integer >= 1 (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

/** InferResponse → ModelInferResponse with every output in raw_output_contents (as Triton). */
export function toInferMessage(res: InferResponse): ModelInferResponse {
  return {
    model_name: res.model,
    model_version: res.version,
    id: res.id,
    outputs: res.outputs.map((o) => ({ name: o.name, datatype: o.datatype, shape: o.shape })),
    raw_output_contents: res.outputs.map((o) =>
      Buffer.from(o.data.buffer, o.data.byteOffset, o.data.byteLength),
    ),
  };
}
