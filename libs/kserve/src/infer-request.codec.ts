import { status as GrpcStatus } from '@grpc/grpc-js';
import { BackendError } from './kserve.errors';
import type { InferCall } from './kserve-pool.types';
import {
  toInferParameter,
  type InferParameter,
  type ModelInferRequest,
  type ModelInferResponse,
} from './kserve.types';
import { contentsToTypedArray } from './tensor-contents.codec';
import { TensorError } from './tensor.errors';
import { tensorFromRaw, tensorToRaw } from './tensor.codec';
import type { KServeDatatype, Tensor } from './tensor.types';

/**
 * InferCall → ModelInferRequest. Every input is checked (datatype, shape ×
 * data length) and encoded to raw_input_contents here, before anything goes
 * on the wire; a bad tensor throws TensorError (INVALID_ARGUMENT).
 */
export function buildInferRequest(call: InferCall): ModelInferRequest {
  const parameters: Record<string, InferParameter> = {};
  for (const [k, v] of Object.entries(call.parameters ?? {})) {
    if (v !== undefined) parameters[k] = toInferParameter(v);
  }
  return {
    model_name: call.model,
    model_version: call.version ?? '',
    id: call.id ?? '',
    parameters,
    inputs: call.inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: [...t.shape] })),
    outputs: (call.outputs ?? []).map((name) => ({ name })),
    raw_input_contents: call.inputs.map((t) => tensorToRaw(t, 'input')),
  };
}

/**
 * ModelInferResponse → domain tensors, from raw_output_contents when present
 * (Triton's default) or else each output's typed contents. A malformed
 * response is the backend's fault: BackendError INTERNAL.
 */
export function decodeInferResponse(res: ModelInferResponse, backend: string): Tensor[] {
  const raw = res.raw_output_contents ?? [];
  try {
    return res.outputs.map((o, i) => {
      if (raw.length > 0) {
        const buf = raw[i];
        if (!buf) throw new Error(`output '${o.name}' has no raw_output_contents entry`);
        return tensorFromRaw(o.name, o.datatype, o.shape, buf, 'output');
      }
      const ref = { role: 'output' as const, name: o.name };
      const data = contentsToTypedArray(o.contents, o.datatype, o.shape, ref);
      return { name: o.name, datatype: o.datatype as KServeDatatype, shape: [...o.shape], data };
    });
  } catch (err: unknown) {
    const msg = err instanceof TensorError || err instanceof Error ? err.message : String(err);
    throw new BackendError(
      backend,
      'ModelInfer',
      GrpcStatus.INTERNAL,
      `malformed response: ${msg}`,
    );
  }
}
