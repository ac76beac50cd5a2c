import { configTypeToDatatype, formatShape } from '@mesh/kserve';
import type { ModelConfig, ModelInput, ModelOutput } from '@mesh/model-repository';
import { ORT_TYPE_OF } from '../execution/ort-worker.protocol';
import type { ValueInfo } from '../execution/ort-worker.protocol';

function checkTensor(
  role: 'input' | 'output',
  config: ModelConfig,
  want: ModelInput | ModelOutput,
  actual: ValueInfo | undefined,
  declared: ValueInfo[],
): string | undefined {
  if (!actual) {
    return `${role} '${want.name}' is not in the model; the model's ${role}s are ${declared.map((d) => `'${d.name}'`).join(', ')}`;
  }
  const datatype = configTypeToDatatype(want.dataType);
  const ortType = datatype && datatype !== 'BYTES' ? ORT_TYPE_OF[datatype] : undefined;
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
  const problems: string[] = [];
  for (const i of config.input) {
    const p = checkTensor(
      'input',
      config,
      i,
      inputs.find((m) => m.name === i.name),
      inputs,
    );
    if (p) problems.push(p);
  }
  for (const o of config.output) {
    const p = checkTensor(
      'output',
      config,
      o,
      outputs.find((m) => m.name === o.name),
      outputs,
    );
    if (p) problems.push(p);
  }
  const optional = new Set(config.input.filter((i) => i.optional).map((i) => i.name));
  for (const m of inputs) {
    if (!config.input.some((i) => i.name === m.name) && !optional.has(m.name)) {
      problems.push(`the model's input '${m.name}' is missing from config.pbtxt`);
    }
  }
  return problems;
}
