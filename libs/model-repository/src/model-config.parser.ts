import {
  readDynamicBatching,
  readInput,
  readInstanceGroup,
  readOutput,
  readParameters,
  readVersionPolicy,
} from './model-config.codec';
import { readOptimization, readWarmup } from './model-config-tuning';
import type { ModelConfig } from './model-config.types';
import { parsePbtxt } from './pbtxt.parser';
import { MessageReader, type IgnoredField } from './pbtxt-reader';
import type { TextMessage } from './pbtxt.types';

export interface ParsedModelConfig {
  config: ModelConfig;
  /** Fields Triton knows that the mesh does not model (or typos): tolerated, worth a log line. */
  ignoredFields: IgnoredField[];
}

/**
 * Parses a Triton `config.pbtxt` into a typed ModelConfig. `file` only labels errors
 * (`file:line:column: reason`). Throws ModelConfigParseError.
 */
export function parseModelConfig(text: string, file: string): ModelConfig {
  return parseModelConfigDetailed(text, file).config;
}

/** As parseModelConfig, also listing the fields that were tolerated but ignored. */
export function parseModelConfigDetailed(text: string, file: string): ParsedModelConfig {
  return modelConfigFromTree(parsePbtxt(text, file), file);
}

/** Reads a parsed text-format (or JSON-derived) tree as a ModelConfig. */
export function modelConfigFromTree(tree: TextMessage, file: string): ParsedModelConfig {
  const root = MessageReader.root(tree, file);
  const config = readModelConfig(root);
  return { config, ignoredFields: root.ignoredFields() };
}

function readModelConfig(r: MessageReader): ModelConfig {
  const maxBatchSize = r.int('max_batch_size', 'int32') ?? 0;
  if (maxBatchSize < 0) {
    r.fail(`'max_batch_size' must be >= 0, got ${maxBatchSize}`, r.positionOf('max_batch_size'));
  }
  const config: ModelConfig = {
    name: r.string('name') ?? '',
    platform: r.string('platform') ?? '',
    backend: r.string('backend') ?? '',
    maxBatchSize,
    input: r.repeatedMessages('input').map(readInput),
    output: r.repeatedMessages('output').map(readOutput),
    instanceGroup: r.repeatedMessages('instance_group').map(readInstanceGroup),
    parameters: readParameters(r),
  };
  const versionPolicy = r.message('version_policy');
  if (versionPolicy) config.versionPolicy = readVersionPolicy(versionPolicy);
  // dynamic_batching shares a oneof with the scheduling kinds the mesh does not model.
  const scheduling = ['dynamic_batching', 'sequence_batching', 'ensemble_scheduling'];
  if (r.oneof(scheduling, 'scheduling_choice') === 'dynamic_batching') {
    const batching = r.message('dynamic_batching');
    if (batching) config.dynamicBatching = readDynamicBatching(batching, maxBatchSize);
  }
  const optimization = r.message('optimization');
  if (optimization) config.optimization = readOptimization(optimization);
  const warmups = r.repeatedMessages('model_warmup');
  if (warmups.length > 0) config.modelWarmup = warmups.map(readWarmup);
  const defaultFile = r.string('default_model_filename');
  if (defaultFile !== undefined) config.defaultModelFilename = defaultFile;
  validateModelConfig(r, config);
  return config;
}

/** Cross-field rules Triton applies when it loads a config. */
function validateModelConfig(r: MessageReader, config: ModelConfig): void {
  uniqueNames(r, 'input', config.input);
  uniqueNames(r, 'output', config.output);
}

function uniqueNames(r: MessageReader, field: string, tensors: { name: string }[]): void {
  const seen = new Set<string>();
  tensors.forEach((tensor, index) => {
    if (seen.has(tensor.name)) {
      const node = r.repeatedMessages(field)[index]?.node;
      r.fail(`duplicate ${field} name '${tensor.name}'`, node);
    }
    seen.add(tensor.name);
  });
}
