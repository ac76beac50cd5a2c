export { DATA_TYPES, dataTypeFromNumber, type DataType, type TensorDataType } from './data-type';
export { setModelConfigParameter } from './model-config-editor';
export { ModelConfigJsonError, ModelConfigParseError } from './model-config.errors';
export { parseModelConfigJson, type ParsedJsonModelConfig } from './model-config-json.parser';
export {
  parseModelConfig,
  parseModelConfigDetailed,
  type ParsedModelConfig,
} from './model-config.parser';
export {
  modelConfigToProtoJson,
  type ProtoJson,
  type ProtoJsonValue,
} from './model-config-proto-json';
export { parameterBlock, pbtxtString, writeModelConfig } from './model-config-writer';
export { ModelImportError, type ModelImportErrorCode } from './model-import.errors';
export {
  ATTENTION_MASK,
  checkAgainstExisting,
  formatSignatureShape,
  INPUT_IDS,
  planModelImport,
  TOKEN_TYPE_IDS,
  type ImportKind,
  type ImportOptions,
  type ImportPlan,
  type OnnxSignature,
  type TensorSignature,
} from './model-import-plan';
export {
  INPUT_FORMATS,
  INSTANCE_GROUP_KINDS,
  MODEL_PRIORITIES,
  TIMEOUT_ACTIONS,
  type DynamicBatching,
  type ExecutionAccelerator,
  type InputFormat,
  type InstanceGroup,
  type InstanceGroupKind,
  type ModelConfig,
  type ModelInput,
  type ModelOutput,
  type ModelParameter,
  type ModelPriority,
  type ModelWarmup,
  type OptimizationPolicy,
  type QueuePolicy,
  type TensorReshape,
  type TimeoutAction,
  type VersionPolicy,
  type WarmupInput,
} from './model-config.types';
export {
  declaredMemoryMb,
  estimateMemoryMb,
  memoryParameterKey,
  memoryParameterProblems,
  wholeMb,
  parseMemoryMb,
} from './memory-footprint';
export {
  checkModelSignature,
  ORT_TYPE_OF,
  type OrtTypeName,
  type ValueInfo,
} from './model-signature.check';
export { ModelRepositoryError, type ModelRepositoryErrorCode } from './model-repository.errors';
export {
  CONFIG_FILE,
  ModelRepositoryReader,
  parseLabels,
  type ModelEntry,
} from './model-repository-reader';
export { ModelRepositoryRescanner, type RescannerOptions } from './model-repository-rescanner';
export type { IgnoredField } from './pbtxt-reader';
export {
  ManifestError,
  type ManifestErrorCode,
  type ManifestIssue,
} from './preprocess-manifest.errors';
export { MANIFEST_FILE, manifestLabel, readPreprocessManifest } from './preprocess-manifest-reader';
export {
  parsePreprocessManifest,
  preprocessManifestSchema,
  type PostprocessSpec,
  type PreprocessManifest,
} from './preprocess-manifest.schema';
export { writePreprocessManifest } from './preprocess-manifest-writer';
export { sha256File } from './sha256-file';
export { DEFAULT_VERSION_POLICY, missingVersions, selectVersions } from './version-policy';
