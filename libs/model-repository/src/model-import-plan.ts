import { ModelImportError } from './model-import.errors';
import type { ModelConfig, ModelInput, ModelOutput } from './model-config.types';

/**
 * Turns the signature of an exported ONNX model (as onnxruntime reports it) into the
 * repository's config for it, or refuses with every reason at once. Pure: the caller inspects
 * the graph, this decides what can be served.
 */

/** One graph input or output: ONNX element type name and dims (a string or -1 = dynamic). */
export interface TensorSignature {
  name: string;
  /** onnxruntime's type name: `int64`, `float32`, ... */
  type: string;
  shape: ReadonlyArray<number | string>;
}

export interface OnnxSignature {
  inputs: TensorSignature[];
  outputs: TensorSignature[];
}

export type ImportKind = 'classification' | 'embedding';

export interface ImportOptions {
  name: string;
  kind: ImportKind;
  /** Lines of labels.txt (classification). */
  labelCount: number;
  maxBatchSize: number;
  /** Output to serve; default `logits` / `last_hidden_state`, or the only output. */
  output?: string;
  labelsFile: string;
}

export interface ImportPlan {
  inputs: { ids: string; mask: string; typeIds?: string };
  output: string;
  /** The config without `model_sha256_v<N>` parameters. */
  config: ModelConfig;
}

export const INPUT_IDS = 'input_ids';
export const ATTENTION_MASK = 'attention_mask';
export const TOKEN_TYPE_IDS = 'token_type_ids';
const KNOWN_INPUTS = [INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS];

const REEXPORT =
  "re-export with dynamic axes, e.g. torch.onnx.export(..., dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, " +
  "'attention_mask': {0: 'batch', 1: 'sequence'}, 'token_type_ids': {0: 'batch', 1: 'sequence'}, 'logits': {0: 'batch'}}) " +
  '(see docs/models.md)';

const isDynamic = (d: number | string | undefined): boolean =>
  d === undefined || typeof d === 'string' || d < 0;

export const formatSignatureShape = (shape: ReadonlyArray<number | string>): string =>
  `[${shape.map((d) => (typeof d === 'string' ? d || '?' : String(d))).join(', ')}]`;

function checkInput(t: TensorSignature): string[] {
  const shape = formatSignatureShape(t.shape);
  const problems: string[] = [];
  if (t.type !== 'int64') {
    problems.push(
      `input '${t.name}' is ${t.type}; the preprocessing pipelines feed int64 (export with torch.long inputs)`,
    );
  }
  if (t.shape.length !== 2) {
    problems.push(`input '${t.name}' has shape ${shape}; expected rank 2 [batch, sequence]`);
    return problems;
  }
  if (!isDynamic(t.shape[0])) {
    problems.push(
      `input '${t.name}' has a static batch axis ${String(t.shape[0])} (shape ${shape}); dynamic batching needs a dynamic batch axis: ${REEXPORT}`,
    );
  }
  if (!isDynamic(t.shape[1])) {
    problems.push(
      `input '${t.name}' has a fixed sequence length ${String(t.shape[1])} (shape ${shape}); the mesh pads each batch only to its longest text, so the sequence axis must be dynamic: ${REEXPORT}`,
    );
  }
  return problems;
}

function planInputs(sig: OnnxSignature, problems: string[]): ModelInput[] {
  const names = sig.inputs.map((i) => i.name);
  for (const required of [INPUT_IDS, ATTENTION_MASK]) {
    if (!names.includes(required)) {
      problems.push(
        `the model has no input '${required}' (its inputs are ${names.map((n) => `'${n}'`).join(', ') || 'none'}); export with input_names=['input_ids', 'attention_mask', 'token_type_ids']`,
      );
    }
  }
  for (const extra of names.filter((n) => !KNOWN_INPUTS.includes(n))) {
    problems.push(
      `the model's input '${extra}' is not one the pipeline fills (input_ids, attention_mask, token_type_ids)`,
    );
  }
  for (const input of sig.inputs) problems.push(...checkInput(input));
  // Keep the pipeline's order, so configs of different exports read the same.
  return KNOWN_INPUTS.filter((n) => names.includes(n)).map((name) => ({
    name,
    dataType: 'TYPE_INT64',
    dims: [-1],
  }));
}

function chooseOutput(
  sig: OnnxSignature,
  opts: ImportOptions,
  problems: string[],
): TensorSignature | undefined {
  const list = sig.outputs.map((o) => `'${o.name}'`).join(', ');
  const preferred =
    opts.output ?? (opts.kind === 'classification' ? 'logits' : 'last_hidden_state');
  const found =
    sig.outputs.find((o) => o.name === preferred) ??
    (opts.output === undefined && sig.outputs.length === 1 ? sig.outputs[0] : undefined);
  if (!found) {
    problems.push(
      opts.output !== undefined
        ? `the model has no output '${opts.output}' (its outputs are ${list})`
        : `cannot tell which output to serve among ${list}; pass --output <name>`,
    );
  }
  return found;
}

function planClassification(
  o: TensorSignature,
  opts: ImportOptions,
  problems: string[],
  labelProblems: string[],
): number[] {
  const shape = formatSignatureShape(o.shape);
  if (o.shape.length !== 2) {
    problems.push(
      `output '${o.name}' has shape ${shape}; a classifier returns [batch, num_labels]`,
    );
    return [opts.labelCount];
  }
  const width = o.shape[1];
  if (typeof width === 'number' && width > 0 && width !== opts.labelCount) {
    labelProblems.push(
      `output '${o.name}' has ${width} classes (shape ${shape}) but ${opts.labelsFile} has ${opts.labelCount} labels; give one label per class, in logit order`,
    );
  }
  return [opts.labelCount];
}

function planEmbedding(o: TensorSignature, problems: string[]): number[] {
  const shape = formatSignatureShape(o.shape);
  const hidden = o.shape[o.shape.length - 1];
  const width = typeof hidden === 'number' && hidden > 0 ? hidden : -1;
  if (o.shape.length === 3) {
    if (!isDynamic(o.shape[1])) {
      problems.push(`output '${o.name}' has a fixed sequence length (shape ${shape}): ${REEXPORT}`);
    }
    return [-1, width];
  }
  if (o.shape.length === 2) return [width];
  problems.push(
    `output '${o.name}' has shape ${shape}; an encoder returns [batch, sequence, hidden] or [batch, hidden]`,
  );
  return [width];
}

function planOutput(
  o: TensorSignature,
  opts: ImportOptions,
  problems: string[],
  labelProblems: string[],
): ModelOutput {
  if (o.type !== 'float32') {
    problems.push(`output '${o.name}' is ${o.type}; the mesh postprocesses float32 outputs`);
  }
  if (o.shape.length > 0 && !isDynamic(o.shape[0])) {
    problems.push(
      `output '${o.name}' has a static batch axis ${String(o.shape[0])} (shape ${formatSignatureShape(o.shape)}): ${REEXPORT}`,
    );
  }
  if (opts.kind === 'classification') {
    const dims = planClassification(o, opts, problems, labelProblems);
    return { name: o.name, dataType: 'TYPE_FP32', dims, labelFilename: opts.labelsFile };
  }
  return { name: o.name, dataType: 'TYPE_FP32', dims: planEmbedding(o, problems) };
}

/** The mesh's batching defaults: preferred sizes up to max_batch_size, two priority levels. */
function batchingFor(maxBatchSize: number): ModelConfig['dynamicBatching'] {
  const preferred = [8, 16, 32].filter((s) => s <= maxBatchSize);
  return {
    preferredBatchSize: preferred.length > 0 ? preferred : [maxBatchSize],
    maxQueueDelayMicroseconds: 2000,
    preserveOrdering: false,
    // Online traffic at priority 1, bulk at 2 (ARCHITECTURE.md, Priorities).
    priorityLevels: 2,
    defaultPriorityLevel: 1,
  };
}

/**
 * Plans the config for `sig`, or throws ModelImportError: SIGNATURE_UNSUPPORTED listing every
 * problem (label problems included), else LABEL_COUNT_MISMATCH.
 */
export function planModelImport(sig: OnnxSignature, opts: ImportOptions): ImportPlan {
  const problems: string[] = [];
  const labelProblems: string[] = [];
  const input = planInputs(sig, problems);
  const chosen = chooseOutput(sig, opts, problems);
  const output = chosen && planOutput(chosen, opts, problems, labelProblems);
  if (problems.length > 0 || !output) {
    throw new ModelImportError('SIGNATURE_UNSUPPORTED', [...problems, ...labelProblems]);
  }
  if (labelProblems.length > 0) throw new ModelImportError('LABEL_COUNT_MISMATCH', labelProblems);
  const names = input.map((i) => i.name);
  return {
    inputs: {
      ids: INPUT_IDS,
      mask: ATTENTION_MASK,
      ...(names.includes(TOKEN_TYPE_IDS) ? { typeIds: TOKEN_TYPE_IDS } : {}),
    },
    output: output.name,
    config: {
      name: opts.name,
      platform: 'onnxruntime_onnx',
      backend: '',
      maxBatchSize: opts.maxBatchSize,
      input,
      output: [output],
      versionPolicy: { all: {} },
      dynamicBatching: batchingFor(opts.maxBatchSize),
      instanceGroup: [{ count: 1, kind: 'KIND_CPU' }],
      parameters: {},
    },
  };
}

const tensorKey = (t: { name: string; dataType: string; dims: number[] }): string =>
  `${t.name} ${t.dataType} [${t.dims.join(', ')}]`;

/**
 * A new version must fit its model's existing config: the same inputs and the served output
 * with the same type and dims (Triton serves all versions of a model with one config).
 */
export function checkAgainstExisting(existing: ModelConfig, plan: ImportPlan): void {
  const problems: string[] = [];
  const have = existing.input.map(tensorKey).sort();
  const want = plan.config.input.map(tensorKey).sort();
  if (have.join('; ') !== want.join('; ')) {
    problems.push(
      `the model's inputs are {${have.join('; ')}} in config.pbtxt but the new version's are {${want.join('; ')}}`,
    );
  }
  const planned = plan.config.output[0];
  const current = existing.output.find((o) => o.name === plan.output);
  if (!current) {
    problems.push(
      `config.pbtxt has no output '${plan.output}' (it has ${existing.output.map((o) => `'${o.name}'`).join(', ')})`,
    );
  } else if (planned && tensorKey(current) !== tensorKey(planned)) {
    problems.push(
      `output '${plan.output}' is ${tensorKey(current)} in config.pbtxt but ${tensorKey(planned)} in the new version`,
    );
  }
  if (problems.length > 0) throw new ModelImportError('EXISTING_MODEL_MISMATCH', problems);
}
