export {
  HEALTH_SERVICE_NAME,
  INFERENCE_METHODS,
  INFERENCE_SERVICE_NAME,
  PROTO_LOADER_OPTIONS,
  loadInferencePackage,
  resolveProtoDir,
  type InferenceMethod,
  type InferencePackage,
} from './inference-proto-loader';
export {
  inferParameterValue,
  toInferParameter,
  type InferBatchStatistics,
  type InferInputTensor,
  type InferOutputTensor,
  type InferParameter,
  type InferRequestedOutputTensor,
  type InferStatistics,
  type InferTensorContents,
  type ModelConfigMessage,
  type ModelConfigRequest,
  type ModelConfigResponse,
  type ModelIndex,
  type ModelInferRequest,
  type ModelInferResponse,
  type ModelMetadataRequest,
  type ModelMetadataResponse,
  type ModelReadyRequest,
  type ModelReadyResponse,
  type ModelRepositoryParameter,
  type ModelStatistics,
  type ModelStatisticsRequest,
  type ModelStatisticsResponse,
  type ModelStreamInferResponse,
  type ModelTensorConfig,
  type RepositoryIndexRequest,
  type RepositoryIndexResponse,
  type RepositoryModelLoadRequest,
  type RepositoryModelUnloadRequest,
  type ServerLiveResponse,
  type ServerMetadataResponse,
  type ServerReadyResponse,
  type StatisticDuration,
  type TensorMetadata,
  TRACEPARENT_PARAMETER,
} from './kserve.types';
export { fromBfloat16Bits, fromHalfBits, toBfloat16Bits, toHalfBits } from './half-float';
export {
  InferRequestError,
  TensorDatatypeError,
  TensorError,
  TensorShapeError,
  TensorSizeError,
  TensorValueError,
} from './tensor.errors';
export {
  decodeBytesElements,
  decodeRawTensor,
  encodeBytesElements,
  encodeRawTensor,
  tensorFromRaw,
  tensorToRaw,
} from './tensor.codec';
export {
  CONTENTS_FIELD,
  contentsToTypedArray,
  typedArrayToContents,
} from './tensor-contents.codec';
export {
  jsonToTensor,
  parseJsonInferRequest,
  tensorToJson,
  toJsonInferResponse,
  type JsonInferResponse,
  type JsonParameterValue,
  type JsonRequestedOutput,
  type JsonTensor,
  type ParsedJsonInferRequest,
} from './tensor-json.codec';
export {
  MAX_TENSOR_ELEMENTS,
  byteSize,
  elementBytes,
  elementCount,
  formatShape,
} from './tensor-shape';
export {
  allocTypedArray,
  isStorageFor,
  typedArrayToValues,
  valuesToTypedArray,
  type ElementValue,
} from './tensor-values';
export {
  ELEMENT_BYTES,
  KSERVE_DATATYPES,
  configTypeToDatatype,
  datatypeToConfigType,
  isKServeDatatype,
  type FixedDatatype,
  type KServeDatatype,
  type Tensor,
  type TensorData,
  type TensorRef,
  type TypedArray,
  type TypedArrayFor,
} from './tensor.types';
export { refreshBackend } from './backend-discovery';
export { buildInferRequest, decodeInferResponse } from './infer-request.codec';
export { isBackendFault, KServeBackend } from './kserve-backend';
export { KServeBackendPool, type ModelConfigOptions } from './kserve-backend-pool';
export {
  createChannelCredentials,
  KServeClient,
  type CallOptions,
  type KServeClientOptions,
} from './kserve-client';
export {
  kserveClientEnv,
  kserveClientIssues,
  kservePoolOptionsFromEnv,
  type KServeClientEnv,
} from './kserve.config';
export {
  createServerCredentials,
  grpcServerTlsEnv,
  grpcServerTlsFrom,
  grpcServerTlsIssues,
  type ServerTlsFiles,
} from './server-tls';
export {
  BackendError,
  BackendUnavailableError,
  grpcStatusName,
  isModelNotHere,
  VersionNotResidentError,
} from './kserve.errors';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type BackendStatus,
  type BreakerOptions,
  type CircuitStateName,
  type InferCall,
  type InferParameterValue,
  type InferResult,
  type KServePoolOptions,
  type ReadyModel,
  type TlsOptions,
} from './kserve-pool.types';
export { DEFAULT_RETRY, runWithRetries, type RetryOptions, type RetryRun } from './retry-policy';
export { callerGone, type CallerGone } from './caller-gone';
export {
  invalidArgumentAnswer,
  refuseUndecodableRequests,
  undecodableReason,
  type UndecodableAnswer,
  type UndecodableOptions,
} from './undecodable-request.hook';
