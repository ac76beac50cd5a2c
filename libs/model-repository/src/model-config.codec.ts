import { DATA_TYPES, type TensorDataType } from './data-type';
import {
  INPUT_FORMATS,
  INSTANCE_GROUP_KINDS,
  TIMEOUT_ACTIONS,
  type DynamicBatching,
  type InstanceGroup,
  type ModelInput,
  type ModelOutput,
  type ModelParameter,
  type QueuePolicy,
  type TensorReshape,
  type VersionPolicy,
} from './model-config.types';
import type { MessageReader } from './pbtxt-reader';

/** Sets `key` only when `value` is defined, so absent fields stay absent in the typed result. */
export function assignDefined<T extends object, K extends keyof T>(target: T, key: K, value: T[K]) {
  if (value !== undefined) target[key] = value;
}

export function readDataType(r: MessageReader, name = 'data_type'): TensorDataType {
  const dataType = r.enumValue(name, DATA_TYPES, 'DataType');
  if (dataType === undefined || dataType === 'TYPE_INVALID') {
    r.fail(`'${r.fieldPath(name)}' is required and must not be TYPE_INVALID`, r.positionOf(name));
  }
  return dataType;
}

function readName(r: MessageReader): string {
  const name = r.string('name');
  if (!name) r.fail(`'${r.fieldPath('name')}' is required`, r.positionOf('name'));
  return name;
}

/** Triton: each dimension is >= 1, or -1 for a variable-size dimension. */
export function readDims(r: MessageReader, name: string, required: boolean): number[] {
  const dims = r.repeatedInts(name, 'int64');
  if (required && dims.length === 0) {
    r.fail(`'${r.fieldPath(name)}' is required (use [ -1 ] for a variable length)`);
  }
  const bad = dims.find((d) => d < -1 || d === 0);
  if (bad !== undefined) {
    r.fail(
      `'${r.fieldPath(name)}' has dimension ${bad}; each must be >= 1, or -1 for variable size`,
      r.positionOf(name),
    );
  }
  return dims;
}

function readReshape(r: MessageReader): TensorReshape | undefined {
  const reshape = r.message('reshape');
  return reshape && { shape: readDims(reshape, 'shape', false) };
}

export function readInput(r: MessageReader): ModelInput {
  const input: ModelInput = { name: readName(r), dataType: readDataType(r), dims: [] };
  assignDefined(input, 'format', r.enumValue('format', INPUT_FORMATS, 'Format'));
  input.dims = readDims(r, 'dims', true);
  assignDefined(input, 'reshape', readReshape(r));
  assignDefined(input, 'isShapeTensor', r.bool('is_shape_tensor'));
  assignDefined(input, 'allowRaggedBatch', r.bool('allow_ragged_batch'));
  assignDefined(input, 'optional', r.bool('optional'));
  return input;
}

export function readOutput(r: MessageReader): ModelOutput {
  const output: ModelOutput = { name: readName(r), dataType: readDataType(r), dims: [] };
  output.dims = readDims(r, 'dims', true);
  assignDefined(output, 'reshape', readReshape(r));
  const labels = r.string('label_filename');
  if (labels !== undefined && (labels.startsWith('/') || labels.split(/[\\/]/).includes('..'))) {
    r.fail(
      `'${r.fieldPath('label_filename')}' must be a path inside the model directory, got ${JSON.stringify(labels)}`,
      r.positionOf('label_filename'),
    );
  }
  assignDefined(output, 'labelFilename', labels);
  assignDefined(output, 'isShapeTensor', r.bool('is_shape_tensor'));
  return output;
}

const DEFAULT_QUEUE_POLICY: QueuePolicy = {
  timeoutAction: 'REJECT',
  defaultTimeoutMicroseconds: 0,
  allowTimeoutOverride: false,
  maxQueueSize: 0,
};

export function readQueuePolicy(r: MessageReader): QueuePolicy {
  const d = DEFAULT_QUEUE_POLICY;
  return {
    timeoutAction:
      r.enumValue('timeout_action', TIMEOUT_ACTIONS, 'TimeoutAction') ?? d.timeoutAction,
    defaultTimeoutMicroseconds:
      r.int('default_timeout_microseconds', 'uint64') ?? d.defaultTimeoutMicroseconds,
    allowTimeoutOverride: r.bool('allow_timeout_override') ?? d.allowTimeoutOverride,
    maxQueueSize: r.int('max_queue_size', 'uint32') ?? d.maxQueueSize,
  };
}

export function readDynamicBatching(r: MessageReader, maxBatchSize: number): DynamicBatching {
  const batching: DynamicBatching = {
    preferredBatchSize: r.repeatedInts('preferred_batch_size', 'int32'),
    maxQueueDelayMicroseconds: r.int('max_queue_delay_microseconds', 'uint64') ?? 0,
    preserveOrdering: r.bool('preserve_ordering') ?? false,
    priorityLevels: r.int('priority_levels', 'uint64') ?? 0,
    defaultPriorityLevel: r.int('default_priority_level', 'uint64') ?? 0,
  };
  const queue = r.message('default_queue_policy');
  if (queue) batching.defaultQueuePolicy = readQueuePolicy(queue);
  const entries = readMapEntries(r, 'priority_queue_policy', (e) => e.int('key', 'uint64') ?? 0);
  if (entries.length > 0) {
    const policies: Record<number, QueuePolicy> = {};
    for (const { key, entry } of entries) {
      const value = entry.message('value');
      policies[key] = value ? readQueuePolicy(value) : { ...DEFAULT_QUEUE_POLICY };
    }
    batching.priorityQueuePolicy = policies;
  }
  checkPreferredSizes(r, batching.preferredBatchSize, maxBatchSize);
  checkPriorities(r, batching, entries);
  return batching;
}

function checkPreferredSizes(r: MessageReader, sizes: number[], maxBatchSize: number): void {
  for (const size of sizes) {
    if (size < 1 || (maxBatchSize > 0 && size > maxBatchSize)) {
      const limit = maxBatchSize > 0 ? ` and <= max_batch_size (${maxBatchSize})` : '';
      const field = r.fieldPath('preferred_batch_size');
      r.fail(`'${field}' ${size} must be >= 1${limit}`, r.positionOf('preferred_batch_size'));
    }
  }
}

/** Triton checks levels only when priorities are enabled (priority_levels > 0). */
function checkPriorities(
  r: MessageReader,
  batching: DynamicBatching,
  entries: { key: number; entry: MessageReader }[],
): void {
  const levels = batching.priorityLevels;
  if (levels === 0) return;
  const inRange = (level: number) => level >= 1 && level <= levels;
  if (!inRange(batching.defaultPriorityLevel)) {
    r.fail(
      `'${r.fieldPath('default_priority_level')}' ${batching.defaultPriorityLevel} must be in [1, ${levels}]`,
      r.positionOf('default_priority_level'),
    );
  }
  const bad = entries.find((e) => !inRange(e.key));
  if (bad) {
    bad.entry.fail(
      `'${r.fieldPath('priority_queue_policy')}' key ${bad.key} must be in [1, ${levels}]`,
    );
  }
}

export function readInstanceGroup(r: MessageReader): InstanceGroup {
  const count = r.int('count', 'int32');
  if (count !== undefined && count < 0) {
    r.fail(`'${r.fieldPath('count')}' must be >= 1, got ${count}`, r.positionOf('count'));
  }
  const group: InstanceGroup = {
    // Triton treats an unset (0) count as 1.
    count: count || 1,
    kind: r.enumValue('kind', INSTANCE_GROUP_KINDS, 'Kind') ?? 'KIND_AUTO',
  };
  if (!count) group.countUnset = true;
  assignDefined(group, 'name', r.string('name'));
  if (r.has('gpus')) group.gpus = r.repeatedInts('gpus', 'int32');
  if ((group.kind === 'KIND_CPU' || group.kind === 'KIND_MODEL') && group.gpus?.length) {
    r.fail(`an instance group of ${group.kind} cannot list 'gpus'`, r.positionOf('gpus'));
  }
  return group;
}

export function readVersionPolicy(r: MessageReader): VersionPolicy {
  const choice = r.oneof(['latest', 'all', 'specific'], 'policy_choice');
  if (choice === 'all') {
    r.message('all');
    return { all: {} };
  }
  if (choice === 'specific') {
    const specific = r.message('specific');
    const versions = specific?.repeatedInts('versions', 'int64') ?? [];
    const bad = versions.find((v) => v < 0);
    if (specific && bad !== undefined) {
      specific.fail(
        `version ${bad} is not a valid version number`,
        specific.positionOf('versions'),
      );
    }
    return { specific: { versions } };
  }
  const latest = r.message('latest');
  const numVersions = latest?.int('num_versions', 'uint32');
  if (latest && numVersions === 0) {
    latest.fail(
      `'${latest.fieldPath('num_versions')}' must be at least 1`,
      latest.positionOf('num_versions'),
    );
  }
  return { latest: { numVersions: numVersions ?? 1 } };
}

/** Map fields are written as repeated `{ key: ... value: ... }` entries; keys must be unique. */
export function readMapEntries<K extends string | number>(
  r: MessageReader,
  name: string,
  readKey: (entry: MessageReader) => K,
): { key: K; entry: MessageReader }[] {
  const seen = new Set<K>();
  return r.repeatedMessages(name).map((entry) => {
    const key = readKey(entry);
    if (seen.has(key)) entry.fail(`duplicate key ${JSON.stringify(key)} in '${r.fieldPath(name)}'`);
    seen.add(key);
    return { key, entry };
  });
}

export function readParameters(r: MessageReader): Record<string, ModelParameter> {
  const parameters: Record<string, ModelParameter> = {};
  for (const { key, entry } of readMapEntries(r, 'parameters', (e) => e.string('key') ?? '')) {
    parameters[key] = { stringValue: entry.message('value')?.string('string_value') ?? '' };
  }
  return parameters;
}

/** map<string, string> entries (accelerator parameters). */
export function readStringMap(r: MessageReader, name: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const { entry, key } of readMapEntries(r, name, (e) => e.string('key') ?? '')) {
    map[key] = entry.string('value') ?? '';
  }
  return map;
}
