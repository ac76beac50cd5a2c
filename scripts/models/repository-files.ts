import { createHash } from 'node:crypto';
import type { BertModelSpec } from './bert-onnx';
import type { BertDimensions } from './bert-dimensions';
import { seedOf, type DemoModel, type DemoVersion } from './demo-catalog';
import { stableJson, type JsonValue } from './stable-json';

/**
 * Text files of a Triton model repository for the demo models: per model
 * `config.pbtxt` and `labels.txt`, per version `preprocess.json`. Pure
 * functions of their inputs, so regenerating reproduces committed bytes.
 */

export const MAX_LENGTH = 128;
export const HARD_MAX_CHARS = 20000;
export const TOKENIZER_FILE = 'tokenizer.json';
export const LABELS_FILE = 'labels.txt';

export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function bertSpecFor(
  model: DemoModel,
  version: DemoVersion,
  dims: BertDimensions,
  vocabSize: number,
): BertModelSpec {
  const head =
    model.output.kind === 'embedding'
      ? ({ kind: 'encoder' } as const)
      : { kind: 'classification' as const, numLabels: model.output.labels.length };
  return {
    name: model.name,
    seed: seedOf(model, version),
    vocabSize,
    dims,
    head,
    ...(version.fault ? { fault: version.fault } : {}),
  };
}

function tensorBlock(name: string, dataType: string, dims: number[], extra: string[] = []): string {
  const lines = [
    `    name: "${name}"`,
    `    data_type: ${dataType}`,
    `    dims: [ ${dims.join(', ')} ]`,
    ...extra,
  ];
  return `  {\n${lines.join('\n')}\n  }`;
}

function outputBlock(model: DemoModel, dims: BertDimensions): string {
  if (model.output.kind === 'embedding') {
    return tensorBlock('last_hidden_state', 'TYPE_FP32', [-1, dims.hidden]);
  }
  return tensorBlock(
    'logits',
    'TYPE_FP32',
    [model.output.labels.length],
    [`    label_filename: "${LABELS_FILE}"`],
  );
}

/**
 * Triton model configuration. A config is per model, so each served version's
 * model.onnx hash is its own parameter, `model_sha256_v<version>`.
 */
export function renderConfigPbtxt(
  model: DemoModel,
  dims: BertDimensions,
  modelSha256: ReadonlyMap<number, string>,
): string {
  const inputs = ['input_ids', 'attention_mask', 'token_type_ids'].map((n) =>
    tensorBlock(n, 'TYPE_INT64', [-1]),
  );
  const parameters = model.versions.map((v) => {
    const sha = modelSha256.get(v.version);
    if (sha === undefined)
      throw new Error(`${model.name}: no model sha256 for version ${v.version}`);
    return `parameters {\n  key: "model_sha256_v${v.version}"\n  value: { string_value: "${sha}" }\n}`;
  });
  return [
    `name: "${model.name}"`,
    'platform: "onnxruntime_onnx"',
    'max_batch_size: 64',
    `input [\n${inputs.join(',\n')}\n]`,
    `output [\n${outputBlock(model, dims)}\n]`,
    'dynamic_batching {\n  preferred_batch_size: [ 8, 16, 32 ]\n  max_queue_delay_microseconds: 2000\n  priority_levels: 2\n  default_priority_level: 1\n}',
    'instance_group [\n  {\n    count: 1\n    kind: KIND_CPU\n  }\n]',
    'version_policy: { all { } }',
    ...parameters,
  ]
    .join('\n')
    .concat('\n');
}

/** One class name per line, in logit order; undefined for models without labels. */
export function renderLabels(model: DemoModel): string | undefined {
  return model.output.kind === 'classification' ? `${model.output.labels.join('\n')}\n` : undefined;
}

function postprocessOf(model: DemoModel): JsonValue {
  const { output } = model;
  if (output.kind === 'embedding') {
    return {
      kind: 'embedding',
      output: 'last_hidden_state',
      pooling: output.pooling,
      normalize: output.normalize,
    };
  }
  return { kind: 'classification', output: 'logits', activation: 'softmax', topK: 3 };
}

/** The per-version preprocessing manifest, in the pinned key order. */
export function renderPreprocessJson(
  model: DemoModel,
  version: DemoVersion,
  tokenizerSha256: string,
  modelSha256: string,
): string {
  return stableJson({
    pipeline: 'bert-wordpiece',
    pipelineVersion: version.pipelineVersion,
    tokenizer: { file: TOKENIZER_FILE, sha256: tokenizerSha256 },
    model: { sha256: modelSha256 },
    maxLength: MAX_LENGTH,
    hardMaxChars: HARD_MAX_CHARS,
    padding: version.padding,
    truncation: 'longest_first',
    inputs: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
    postprocess: postprocessOf(model),
  });
}

/** Relative path of a version file (posix separators). */
export function versionFile(model: DemoModel, version: DemoVersion, file: string): string {
  return `${model.name}/${version.version}/${file}`;
}

/**
 * Every text file of the repository, keyed by relative path, in a fixed order.
 * `modelSha256Of` supplies each version's model.onnx hash.
 */
export function renderRepositoryText(
  models: readonly DemoModel[],
  dims: BertDimensions,
  tokenizerJson: string,
  modelSha256Of: (model: DemoModel, version: DemoVersion) => string,
): Map<string, string> {
  const files = new Map<string, string>();
  const tokenizerSha = sha256Hex(tokenizerJson);
  for (const model of models) {
    const hashes = new Map(model.versions.map((v) => [v.version, modelSha256Of(model, v)]));
    files.set(`${model.name}/config.pbtxt`, renderConfigPbtxt(model, dims, hashes));
    const labels = renderLabels(model);
    if (labels !== undefined) files.set(`${model.name}/${LABELS_FILE}`, labels);
    for (const version of model.versions) {
      const sha = hashes.get(version.version) ?? '';
      files.set(
        versionFile(model, version, 'preprocess.json'),
        renderPreprocessJson(model, version, tokenizerSha, sha),
      );
      files.set(versionFile(model, version, TOKENIZER_FILE), tokenizerJson);
    }
  }
  return files;
}
