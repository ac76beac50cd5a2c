import type {
  DynamicBatching,
  ExecutionAccelerator,
  InstanceGroup,
  ModelConfig,
  ModelInput,
  ModelOutput,
  ModelWarmup,
  OptimizationPolicy,
  QueuePolicy,
  TensorReshape,
  VersionPolicy,
} from './model-config.types';

/** Plain object accepted by a message type loaded with keepCase, enums: String, longs: Number. */
export type ProtoJson = { [key: string]: ProtoJsonValue };
export type ProtoJsonValue = string | number | boolean | ProtoJson | ProtoJsonValue[];

/**
 * `inference.ModelConfig` in the shape @grpc/proto-loader expects when loaded with
 * `keepCase: true, enums: String, longs: Number`: snake_case keys as in model_config.proto, enum
 * names as strings, 64-bit integers as numbers, maps as objects. Used by the ModelConfig RPC.
 */
export function modelConfigToProtoJson(config: ModelConfig): ProtoJson {
  const out: ProtoJson = {
    name: config.name,
    platform: config.platform,
    backend: config.backend,
    max_batch_size: config.maxBatchSize,
    input: config.input.map(inputToProto),
    output: config.output.map(outputToProto),
    instance_group: config.instanceGroup.map(instanceGroupToProto),
    parameters: Object.fromEntries(
      Object.entries(config.parameters).map(([k, v]) => [k, { string_value: v.stringValue }]),
    ),
  };
  if (config.versionPolicy) out.version_policy = versionPolicyToProto(config.versionPolicy);
  if (config.dynamicBatching) out.dynamic_batching = batchingToProto(config.dynamicBatching);
  if (config.optimization) out.optimization = optimizationToProto(config.optimization);
  if (config.modelWarmup) out.model_warmup = config.modelWarmup.map(warmupToProto);
  if (config.defaultModelFilename !== undefined) {
    out.default_model_filename = config.defaultModelFilename;
  }
  return out;
}

/** Copies the defined entries of `fields` into `target` (absent optionals stay unset). */
function withDefined(target: ProtoJson, fields: Record<string, ProtoJsonValue | undefined>) {
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) target[key] = value;
  return target;
}

const reshapeToProto = (r: TensorReshape | undefined) => r && { shape: [...r.shape] };

function inputToProto(input: ModelInput): ProtoJson {
  return withDefined(
    { name: input.name, data_type: input.dataType, dims: [...input.dims] },
    {
      format: input.format,
      reshape: reshapeToProto(input.reshape),
      is_shape_tensor: input.isShapeTensor,
      allow_ragged_batch: input.allowRaggedBatch,
      optional: input.optional,
    },
  );
}

function outputToProto(output: ModelOutput): ProtoJson {
  return withDefined(
    { name: output.name, data_type: output.dataType, dims: [...output.dims] },
    {
      reshape: reshapeToProto(output.reshape),
      label_filename: output.labelFilename,
      is_shape_tensor: output.isShapeTensor,
    },
  );
}

function instanceGroupToProto(group: InstanceGroup): ProtoJson {
  return withDefined(
    { count: group.count, kind: group.kind },
    { name: group.name, gpus: group.gpus && [...group.gpus] },
  );
}

function versionPolicyToProto(policy: VersionPolicy): ProtoJson {
  if ('latest' in policy) return { latest: { num_versions: policy.latest.numVersions } };
  if ('specific' in policy) return { specific: { versions: [...policy.specific.versions] } };
  return { all: {} };
}

function queuePolicyToProto(policy: QueuePolicy): ProtoJson {
  return {
    timeout_action: policy.timeoutAction,
    default_timeout_microseconds: policy.defaultTimeoutMicroseconds,
    allow_timeout_override: policy.allowTimeoutOverride,
    max_queue_size: policy.maxQueueSize,
  };
}

function batchingToProto(batching: DynamicBatching): ProtoJson {
  const out: ProtoJson = {
    preferred_batch_size: [...batching.preferredBatchSize],
    max_queue_delay_microseconds: batching.maxQueueDelayMicroseconds,
    preserve_ordering: batching.preserveOrdering,
    priority_levels: batching.priorityLevels,
    default_priority_level: batching.defaultPriorityLevel,
  };
  if (batching.defaultQueuePolicy) {
    out.default_queue_policy = queuePolicyToProto(batching.defaultQueuePolicy);
  }
  if (batching.priorityQueuePolicy) {
    // map<uint64, ModelQueuePolicy>: protobufjs takes the keys as decimal strings.
    out.priority_queue_policy = Object.fromEntries(
      Object.entries(batching.priorityQueuePolicy).map(([k, v]) => [k, queuePolicyToProto(v)]),
    );
  }
  return out;
}

const acceleratorToProto = (a: ExecutionAccelerator): ProtoJson => ({
  name: a.name,
  parameters: { ...a.parameters },
});

function optimizationToProto(policy: OptimizationPolicy): ProtoJson {
  const accelerators = policy.executionAccelerators;
  return withDefined(
    {},
    {
      graph: policy.graph && { level: policy.graph.level },
      priority: policy.priority,
      execution_accelerators: accelerators && {
        gpu_execution_accelerator: accelerators.gpuExecutionAccelerator.map(acceleratorToProto),
        cpu_execution_accelerator: accelerators.cpuExecutionAccelerator.map(acceleratorToProto),
      },
      input_pinned_memory: policy.inputPinnedMemory && { ...policy.inputPinnedMemory },
      output_pinned_memory: policy.outputPinnedMemory && { ...policy.outputPinnedMemory },
      gather_kernel_buffer_threshold: policy.gatherKernelBufferThreshold,
      eager_batching: policy.eagerBatching,
    },
  );
}

function warmupToProto(warmup: ModelWarmup): ProtoJson {
  const inputs: ProtoJson = {};
  for (const [name, input] of Object.entries(warmup.inputs)) {
    inputs[name] = withDefined(
      { data_type: input.dataType, dims: [...input.dims] },
      {
        zero_data: input.zeroData,
        random_data: input.randomData,
        input_data_file: input.inputDataFile,
      },
    );
  }
  return { name: warmup.name, batch_size: warmup.batchSize, inputs, count: warmup.count };
}
