import type { TensorDataType } from './data-type';

/**
 * Typed view of Triton's `inference.ModelConfig` (model_config.proto): field names are the
 * camelCase of the proto names, enums are their proto enum-name strings. Fields the mesh does not
 * use (sequence batching, ensembles, rate limiters, ...) are not modelled; the parser tolerates
 * them. Optional members are present only when the config sets them.
 */
export interface ModelConfig {
  name: string;
  platform: string;
  backend: string;
  /** 0 = no implicit batch dimension; > 0 = the first dimension is the batch. */
  maxBatchSize: number;
  input: ModelInput[];
  output: ModelOutput[];
  /** Absent means Triton's default, latest { num_versions: 1 }. */
  versionPolicy?: VersionPolicy;
  dynamicBatching?: DynamicBatching;
  /** Empty when the config has none (Triton then picks one instance per device). */
  instanceGroup: InstanceGroup[];
  parameters: Record<string, ModelParameter>;
  optimization?: OptimizationPolicy;
  modelWarmup?: ModelWarmup[];
  defaultModelFilename?: string;
}

export const INPUT_FORMATS = { FORMAT_NONE: 0, FORMAT_NHWC: 1, FORMAT_NCHW: 2 } as const;
export type InputFormat = keyof typeof INPUT_FORMATS;

export interface TensorReshape {
  shape: number[];
}

export interface ModelInput {
  name: string;
  dataType: TensorDataType;
  format?: InputFormat;
  /** Without the batch dimension when maxBatchSize > 0; -1 = variable. */
  dims: number[];
  reshape?: TensorReshape;
  isShapeTensor?: boolean;
  allowRaggedBatch?: boolean;
  optional?: boolean;
}

export interface ModelOutput {
  name: string;
  dataType: TensorDataType;
  dims: number[];
  reshape?: TensorReshape;
  /** Relative to the model directory, e.g. `labels.txt`. */
  labelFilename?: string;
  isShapeTensor?: boolean;
}

export type VersionPolicy =
  | { latest: { numVersions: number } }
  | { all: Record<string, never> }
  | { specific: { versions: number[] } };

export const TIMEOUT_ACTIONS = { REJECT: 0, DELAY: 1 } as const;
export type TimeoutAction = keyof typeof TIMEOUT_ACTIONS;

export interface QueuePolicy {
  timeoutAction: TimeoutAction;
  /** 0 = no timeout. */
  defaultTimeoutMicroseconds: number;
  allowTimeoutOverride: boolean;
  /** 0 = unbounded. */
  maxQueueSize: number;
}

export interface DynamicBatching {
  preferredBatchSize: number[];
  maxQueueDelayMicroseconds: number;
  preserveOrdering: boolean;
  /** 0 = priorities disabled; otherwise levels 1 (highest) .. priorityLevels. */
  priorityLevels: number;
  defaultPriorityLevel: number;
  defaultQueuePolicy?: QueuePolicy;
  /** Keyed by priority level. */
  priorityQueuePolicy?: Record<number, QueuePolicy>;
}

export const INSTANCE_GROUP_KINDS = {
  KIND_AUTO: 0,
  KIND_GPU: 1,
  KIND_CPU: 2,
  KIND_MODEL: 3,
} as const;
export type InstanceGroupKind = keyof typeof INSTANCE_GROUP_KINDS;

export interface InstanceGroup {
  name?: string;
  /** Defaults to 1, as in Triton. */
  count: number;
  /**
   * Set when the config wrote no count (or 0, proto3's unset): Triton reads 1, the embedded host
   * chooses instances × threads itself. Absent when a count was written.
   */
  countUnset?: true;
  kind: InstanceGroupKind;
  gpus?: number[];
}

export interface ModelParameter {
  stringValue: string;
}

export const MODEL_PRIORITIES = { PRIORITY_DEFAULT: 0, PRIORITY_MAX: 1, PRIORITY_MIN: 2 } as const;
export type ModelPriority = keyof typeof MODEL_PRIORITIES;

export interface ExecutionAccelerator {
  name: string;
  parameters: Record<string, string>;
}

/** `optimization`; `cuda` settings are GPU-only and not modelled. */
export interface OptimizationPolicy {
  graph?: { level: number };
  priority?: ModelPriority;
  executionAccelerators?: {
    gpuExecutionAccelerator: ExecutionAccelerator[];
    cpuExecutionAccelerator: ExecutionAccelerator[];
  };
  inputPinnedMemory?: { enable: boolean };
  outputPinnedMemory?: { enable: boolean };
  gatherKernelBufferThreshold?: number;
  eagerBatching?: boolean;
}

export interface WarmupInput {
  dataType: TensorDataType;
  dims: number[];
  zeroData?: boolean;
  randomData?: boolean;
  inputDataFile?: string;
}

export interface ModelWarmup {
  name: string;
  batchSize: number;
  inputs: Record<string, WarmupInput>;
  count: number;
}
