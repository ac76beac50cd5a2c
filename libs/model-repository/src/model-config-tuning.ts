import {
  assignDefined,
  readDataType,
  readDims,
  readMapEntries,
  readStringMap,
} from './model-config.codec';
import {
  MODEL_PRIORITIES,
  type ExecutionAccelerator,
  type ModelWarmup,
  type OptimizationPolicy,
  type WarmupInput,
} from './model-config.types';
import type { MessageReader } from './pbtxt-reader';

/** `optimization` and `model_warmup`: tuning sections the host reads but does not require. */

function readAccelerators(r: MessageReader, name: string): ExecutionAccelerator[] {
  return r.repeatedMessages(name).map((a) => ({
    name: a.string('name') ?? '',
    parameters: readStringMap(a, 'parameters'),
  }));
}

function readPinned(r: MessageReader, name: string): { enable: boolean } | undefined {
  const pinned = r.message(name);
  // Triton's documented default for pinned memory is enabled.
  return pinned && { enable: pinned.bool('enable') ?? true };
}

export function readOptimization(r: MessageReader): OptimizationPolicy {
  const policy: OptimizationPolicy = {};
  const graph = r.message('graph');
  if (graph) policy.graph = { level: graph.int('level', 'int32') ?? 0 };
  assignDefined(policy, 'priority', r.enumValue('priority', MODEL_PRIORITIES, 'ModelPriority'));
  const accelerators = r.message('execution_accelerators');
  if (accelerators) {
    policy.executionAccelerators = {
      gpuExecutionAccelerator: readAccelerators(accelerators, 'gpu_execution_accelerator'),
      cpuExecutionAccelerator: readAccelerators(accelerators, 'cpu_execution_accelerator'),
    };
  }
  assignDefined(policy, 'inputPinnedMemory', readPinned(r, 'input_pinned_memory'));
  assignDefined(policy, 'outputPinnedMemory', readPinned(r, 'output_pinned_memory'));
  assignDefined(
    policy,
    'gatherKernelBufferThreshold',
    r.int('gather_kernel_buffer_threshold', 'uint32'),
  );
  assignDefined(policy, 'eagerBatching', r.bool('eager_batching'));
  return policy;
}

function readWarmupInput(r: MessageReader): WarmupInput {
  const input: WarmupInput = { dataType: readDataType(r), dims: readDims(r, 'dims', false) };
  const source = r.oneof(['zero_data', 'random_data', 'input_data_file'], 'input_data_type');
  if (source === 'zero_data') input.zeroData = r.bool('zero_data') ?? false;
  if (source === 'random_data') input.randomData = r.bool('random_data') ?? false;
  if (source === 'input_data_file') input.inputDataFile = r.string('input_data_file') ?? '';
  return input;
}

export function readWarmup(r: MessageReader): ModelWarmup {
  const inputs: Record<string, WarmupInput> = {};
  for (const { key, entry } of readMapEntries(r, 'inputs', (e) => e.string('key') ?? '')) {
    const value = entry.message('value') ?? entry.fail(`warmup input '${key}' has no value`);
    inputs[key] = readWarmupInput(value);
  }
  return {
    name: r.string('name') ?? '',
    batchSize: r.int('batch_size', 'uint32') ?? 0,
    inputs,
    count: r.int('count', 'uint32') ?? 0,
  };
}
