import { ELEMENT_BYTES, MAX_TENSOR_ELEMENTS, formatShape } from '@mesh/kserve';
import type { HostTensor, InferRequest } from './inference.types';
import { checkInputBounds } from './input-bounds.check';
import { InvalidInferenceError } from './model-host.errors';
import { fullDims, type ModelVersionSpec, type TensorSpec } from './model-spec';

const list = (names: string[]): string => names.map((n) => `'${n}'`).join(', ');

function checkShape(spec: ModelVersionSpec, want: TensorSpec, t: HostTensor): void {
  const dims = fullDims(spec, want);
  const ok = t.shape.length === dims.length && dims.every((d, i) => d < 0 || d === t.shape[i]);
  if (!ok || t.shape.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw new InvalidInferenceError(
      `input '${t.name}': shape ${formatShape(t.shape)} does not match the model's ${formatShape(dims)}` +
        (spec.maxBatchSize > 0 ? ' (the first dimension is the batch)' : ''),
    );
  }
  // An empty tensor has nothing to compute, and graphs fail on it deep inside ORT. (An empty
  // batch dimension is reported by the batch check, which names the allowed range.)
  const empty = t.shape.indexOf(0, spec.maxBatchSize > 0 ? 1 : 0);
  if (empty >= 0) {
    throw new InvalidInferenceError(
      `input '${t.name}': shape ${formatShape(t.shape)} is empty along dimension ${empty}; every dimension must be at least 1`,
    );
  }
  let count = 1;
  for (const d of t.shape) {
    count *= d;
    if (count > MAX_TENSOR_ELEMENTS) {
      throw new InvalidInferenceError(
        `input '${t.name}': shape ${formatShape(t.shape)} declares more than ${MAX_TENSOR_ELEMENTS} elements`,
      );
    }
  }
  const need = count * ELEMENT_BYTES[want.datatype];
  if (t.data.byteLength !== need) {
    throw new InvalidInferenceError(
      `input '${t.name}': data holds ${t.data.byteLength} bytes but shape ${formatShape(t.shape)} of ${want.datatype} needs ${need}`,
    );
  }
}

/**
 * Checks a request against the served version's config before it is queued, so malformed
 * requests never reach ORT. Returns the inputs in the model's input order.
 */
export function validateInferRequest(spec: ModelVersionSpec, req: InferRequest): HostTensor[] {
  const byName = new Map<string, HostTensor>();
  for (const t of req.inputs) {
    if (byName.has(t.name)) throw new InvalidInferenceError(`input '${t.name}' is given twice`);
    if (!spec.inputs.some((i) => i.name === t.name)) {
      throw new InvalidInferenceError(
        `unexpected input '${t.name}': model '${spec.model}' expects inputs ${list(spec.inputs.map((i) => i.name))}`,
      );
    }
    byName.set(t.name, t);
  }
  const ordered = spec.inputs.map((want) => {
    const t = byName.get(want.name);
    if (!t) {
      throw new InvalidInferenceError(
        `missing input '${want.name}' (${want.datatype} ${formatShape(fullDims(spec, want))})`,
      );
    }
    if (t.datatype !== want.datatype) {
      throw new InvalidInferenceError(
        `input '${t.name}': datatype ${t.datatype} does not match the model's ${want.datatype}`,
      );
    }
    checkShape(spec, want, t);
    return t;
  });
  checkBatch(spec, ordered);
  checkInputBounds(spec.inputBounds, ordered);
  for (const name of req.outputs) {
    if (!spec.outputs.some((o) => o.name === name)) {
      throw new InvalidInferenceError(
        `unknown output '${name}': model '${spec.model}' has outputs ${list(spec.outputs.map((o) => o.name))}`,
      );
    }
  }
  const levels = spec.batching.priorityLevels;
  if (req.priority > 0 && levels > 0 && req.priority > levels) {
    throw new InvalidInferenceError(
      `priority ${req.priority} is out of range: model '${spec.model}' has priority levels 1..${levels}`,
    );
  }
  return ordered;
}

function checkBatch(spec: ModelVersionSpec, inputs: HostTensor[]): void {
  if (spec.maxBatchSize === 0) return;
  const batch = inputs[0]?.shape[0] ?? 0;
  for (const t of inputs) {
    const b = t.shape[0] ?? 0;
    if (b !== batch) {
      throw new InvalidInferenceError(
        `input '${t.name}': batch size ${b} differs from input '${inputs[0]?.name}' (${batch})`,
      );
    }
    if (b < 1 || b > spec.maxBatchSize) {
      throw new InvalidInferenceError(
        `input '${t.name}': batch size ${b} is outside 1..${spec.maxBatchSize} (max_batch_size)`,
      );
    }
  }
}
