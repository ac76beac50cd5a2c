import type { ModelConfig, ModelInput, ModelOutput } from './model-config.types';

/**
 * Tensor element type (KServe datatype name, `TYPE_*` in config.pbtxt without the prefix) →
 * onnxruntime tensor type name. BYTES (TYPE_STRING) has none: the host serves numeric tensors.
 */
export const ORT_TYPE_OF = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  BF16: 'bfloat16',
  FP32: 'float32',
  FP64: 'float64',
} as const;

export type OrtTypeName = (typeof ORT_TYPE_OF)[keyof typeof ORT_TYPE_OF];

/** One input or output of an ONNX graph as onnxruntime reports it. */
export interface ValueInfo {
  name: string;
  type: string;
  /** Dimensions as the ONNX graph declares them; symbolic dims are -1. */
  shape: number[];
}

/** onnxruntime's type name for a config.pbtxt `data_type` (`TYPE_FP32` → `float32`). */
function ortTypeOfConfig(dataType: string): OrtTypeName | undefined {
  const bare = dataType.startsWith('TYPE_') ? dataType.slice(5) : '';
  return Object.hasOwn(ORT_TYPE_OF, bare)
    ? ORT_TYPE_OF[bare as keyof typeof ORT_TYPE_OF]
    : undefined;
}

/** `[-1,128]`, as KServe error messages print shapes. */
const formatShape = (shape: readonly number[]): string => `[${shape.join(',')}]`;

/** What is wrong with the model's tensor named like `want` (among `declared`), if anything. */
function checkTensor(
  role: 'input' | 'output',
  config: ModelConfig,
  want: ModelInput | ModelOutput,
  declared: readonly ValueInfo[],
): string | undefined {
  const actual = declared.find((d) => d.name === want.name);
  if (!actual) {
    return `${role} '${want.name}' is not in the model; the model's ${role}s are ${declared.map((d) => `'${d.name}'`).join(', ')}`;
  }
  const ortType = ortTypeOfConfig(want.dataType);
  if (ortType !== actual.type) {
    return `${role} '${want.name}': config data_type ${want.dataType} but the model's is ${actual.type}`;
  }
  const configShape = config.maxBatchSize > 0 ? [-1, ...want.dims] : want.dims;
  const batchNote =
    config.maxBatchSize > 0
      ? ` (dims ${formatShape(want.dims)} plus the batch dimension of max_batch_size ${config.maxBatchSize})`
      : '';
  // Outputs with an empty shape list are unknown to ORT metadata; only inputs are always typed.
  if (actual.shape.length === 0 && role === 'output') return undefined;
  const mismatch =
    actual.shape.length !== configShape.length ||
    configShape.some((d, i) => {
      const m = actual.shape[i] ?? -1;
      return d >= 0 && m >= 0 && d !== m;
    });
  if (mismatch) {
    return `${role} '${want.name}': config shape ${formatShape(configShape)}${batchNote} does not match the model's ${formatShape(actual.shape)}`;
  }
  return undefined;
}

/**
 * Compares config.pbtxt's inputs and outputs with the ONNX graph (names, datatypes, rank with
 * the implicit batch dimension, fixed dims). Returns every problem, empty when they agree.
 */
export function checkModelSignature(
  config: ModelConfig,
  inputs: ValueInfo[],
  outputs: ValueInfo[],
): string[] {
  const problems = [
    ...config.input.map((i) => checkTensor('input', config, i, inputs)),
    ...config.output.map((o) => checkTensor('output', config, o, outputs)),
  ].filter((p): p is string => p !== undefined);
  const optional = new Set(config.input.filter((i) => i.optional).map((i) => i.name));
  for (const m of inputs) {
    if (!config.input.some((i) => i.name === m.name) && !optional.has(m.name)) {
      problems.push(`the model's input '${m.name}' is missing from config.pbtxt`);
    }
  }
  return problems;
}
