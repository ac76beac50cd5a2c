// Hand-written shapes of the `inference` protobuf messages the mesh uses, as
// @grpc/proto-loader produces them with keepCase / longs: Number /
// enums: String / defaults / oneofs (see inference-proto-loader.ts). They
// belong at the transport edge; services work on Tensor and the pool's types.

/** A parameter value; `parameter_choice` names the member that is set. */
/**
 * The request parameter that carries a W3C `traceparent` on a stream (ModelStreamInfer), whose
 * gRPC metadata is shared by every request on it. Not a reserved Triton name (those are
 * `sequence_*`, `priority`, `timeout`, `binary_data_output` and the `triton_` prefix), so Triton
 * passes it through untouched; the embedded host continues the trace from it.
 */
export const TRACEPARENT_PARAMETER = 'traceparent';

export interface InferParameter {
  bool_param?: boolean;
  int64_param?: number | string;
  string_param?: string;
  double_param?: number;
  uint64_param?: number | string;
  parameter_choice?:
    'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';
}

export interface InferTensorContents {
  bool_contents?: boolean[];
  int_contents?: number[];
  int64_contents?: (number | string)[];
  uint_contents?: number[];
  uint64_contents?: (number | string)[];
  fp32_contents?: number[];
  fp64_contents?: number[];
  bytes_contents?: Buffer[];
}

export interface InferInputTensor {
  name: string;
  datatype: string;
  shape: number[];
  parameters?: Record<string, InferParameter>;
  contents?: InferTensorContents | null;
}

export interface InferRequestedOutputTensor {
  name: string;
  parameters?: Record<string, InferParameter>;
}

export interface ModelInferRequest {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, InferParameter>;
  inputs: InferInputTensor[];
  outputs?: InferRequestedOutputTensor[];
  raw_input_contents?: Buffer[];
}

export interface InferOutputTensor {
  name: string;
  datatype: string;
  shape: number[];
  parameters?: Record<string, InferParameter>;
  contents?: InferTensorContents | null;
}

export interface ModelInferResponse {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: Record<string, InferParameter>;
  outputs: InferOutputTensor[];
  raw_output_contents: Buffer[];
}

export interface ModelStreamInferResponse {
  error_message: string;
  infer_response: ModelInferResponse | null;
}

export interface ServerLiveResponse {
  live: boolean;
}

export interface ServerReadyResponse {
  ready: boolean;
}

export interface ModelReadyRequest {
  name: string;
  version?: string;
}

export interface ModelReadyResponse {
  ready: boolean;
}

export interface ServerMetadataResponse {
  name: string;
  version: string;
  extensions: string[];
}

export interface ModelMetadataRequest {
  name: string;
  version?: string;
}

export interface TensorMetadata {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelMetadataResponse {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

export interface ModelConfigRequest {
  name: string;
  version?: string;
}

/** model_config.proto ModelInput / ModelOutput (fields the mesh reads). */
export interface ModelTensorConfig {
  name: string;
  data_type: string;
  dims: number[];
  label_filename?: string;
  optional?: boolean;
}

/** model_config.proto ModelConfig, the fields the mesh reads or serves. */
export interface ModelConfigMessage {
  name: string;
  platform: string;
  backend?: string;
  max_batch_size: number;
  input: ModelTensorConfig[];
  output: ModelTensorConfig[];
  parameters: Record<string, { string_value: string }>;
  version_policy?: {
    latest?: { num_versions: number };
    all?: Record<string, never>;
    specific?: { versions: number[] };
    policy_choice?: 'latest' | 'all' | 'specific';
  } | null;
  dynamic_batching?: {
    preferred_batch_size: number[];
    max_queue_delay_microseconds: number;
    priority_levels?: number;
    default_priority_level?: number;
    default_queue_policy?: {
      timeout_action?: 'REJECT' | 'DELAY';
      default_timeout_microseconds?: number;
      allow_timeout_override?: boolean;
      max_queue_size?: number;
    } | null;
  } | null;
  instance_group: { name?: string; kind: string; count: number }[];
  scheduling_choice?: 'dynamic_batching' | 'sequence_batching' | 'ensemble_scheduling';
}

export interface ModelConfigResponse {
  config: ModelConfigMessage | null;
}

export interface StatisticDuration {
  count: number;
  ns: number;
}

export interface InferStatistics {
  success: StatisticDuration | null;
  fail: StatisticDuration | null;
  queue: StatisticDuration | null;
  compute_input: StatisticDuration | null;
  compute_infer: StatisticDuration | null;
  compute_output: StatisticDuration | null;
  cache_hit: StatisticDuration | null;
  cache_miss: StatisticDuration | null;
}

export interface InferBatchStatistics {
  batch_size: number;
  compute_input: StatisticDuration | null;
  compute_infer: StatisticDuration | null;
  compute_output: StatisticDuration | null;
}

export interface ModelStatistics {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: InferStatistics | null;
  batch_stats: InferBatchStatistics[];
  memory_usage?: { type: string; id: number; byte_size: number }[];
}

export interface ModelStatisticsRequest {
  name?: string;
  version?: string;
}

export interface ModelStatisticsResponse {
  model_stats: ModelStatistics[];
}

export interface RepositoryIndexRequest {
  repository_name?: string;
  ready?: boolean;
}

export interface ModelIndex {
  name: string;
  version: string;
  state: string;
  reason: string;
}

export interface RepositoryIndexResponse {
  models: ModelIndex[];
}

export interface ModelRepositoryParameter {
  bool_param?: boolean;
  int64_param?: number | string;
  string_param?: string;
  bytes_param?: Buffer;
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'bytes_param';
}

export interface RepositoryModelLoadRequest {
  repository_name?: string;
  model_name: string;
  parameters?: Record<string, ModelRepositoryParameter>;
}

export interface RepositoryModelUnloadRequest {
  repository_name?: string;
  model_name: string;
  parameters?: Record<string, ModelRepositoryParameter>;
}

/** Reads the set member of an InferParameter (undefined when none is set). */
export function inferParameterValue(
  p: InferParameter | undefined,
): boolean | number | string | undefined {
  if (!p) return undefined;
  const choice =
    p.parameter_choice ??
    (['bool_param', 'int64_param', 'string_param', 'double_param', 'uint64_param'] as const).find(
      (k) => p[k] !== undefined,
    );
  if (choice === undefined) return undefined;
  const v = p[choice];
  if (choice === 'int64_param' || choice === 'uint64_param') return Number(v);
  return v;
}

/** Builds an InferParameter from a plain value (integers → int64, others → double). */
export function toInferParameter(value: boolean | number | string): InferParameter {
  if (typeof value === 'boolean') return { bool_param: value };
  if (typeof value === 'string') return { string_param: value };
  return Number.isInteger(value) ? { int64_param: value } : { double_param: value };
}
