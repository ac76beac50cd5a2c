import {
  ModelConfigJsonError,
  parseModelConfigJson,
  type ModelConfig,
} from '@mesh/model-repository';
import { InvalidInferenceError } from '../core/model-host.errors';

/** Proto field name → ModelConfig property, for the fields the host models. */
const PROPERTY: Record<string, keyof ModelConfig> = {
  name: 'name',
  platform: 'platform',
  backend: 'backend',
  max_batch_size: 'maxBatchSize',
  input: 'input',
  output: 'output',
  version_policy: 'versionPolicy',
  dynamic_batching: 'dynamicBatching',
  instance_group: 'instanceGroup',
  parameters: 'parameters',
  optimization: 'optimization',
  model_warmup: 'modelWarmup',
  default_model_filename: 'defaultModelFilename',
};

/**
 * Applies a repository load's `config` parameter (a JSON ModelConfig) to the model's
 * config.pbtxt. Triton loads the given config instead of the file and completes what it leaves
 * out from the model; the host takes what it leaves out from config.pbtxt instead, so
 * `{"version_policy": {"specific": {"versions": [2]}}}` alone retires every other version.
 */
export function applyConfigOverride(name: string, base: ModelConfig, json: string): ModelConfig {
  let parsed;
  try {
    parsed = parseModelConfigJson(json, "load parameter 'config'");
  } catch (err: unknown) {
    if (err instanceof ModelConfigJsonError) throw new InvalidInferenceError(err.message);
    throw err;
  }
  const merged: ModelConfig = { ...base };
  const target = merged as unknown as Record<string, unknown>;
  const source = parsed.config as unknown as Record<string, unknown>;
  for (const field of parsed.fieldsSet) {
    if (field === 'name' && parsed.config.name === '') continue;
    const property = PROPERTY[field];
    if (property !== undefined) target[property] = source[property];
  }
  if (merged.name !== name) {
    throw new InvalidInferenceError(
      `load parameter 'config': name '${merged.name}' does not match the model '${name}'`,
    );
  }
  return merged;
}
