export { BatchEncoder, type EncoderOptions } from './batch.encoder';
export { BertTokenizer, type SegmentTokens, type TemplatePiece } from './bert.tokenizer';
export { ModelVersionPreprocessor } from './model-version.preprocessor';
export { ACTIVATIONS, OutputPostprocessor, type Activation } from './output.postprocessor';
export {
  PipelineRegistry,
  type PairTruncation,
  type PipelineDefinition,
} from './pipeline.registry';
export {
  InputTooLargeError,
  InputValidationError,
  OutputShapeError,
  PreprocessingMismatchError,
  type PreprocessingMismatchCode,
} from './preprocessing.errors';
export { PreprocessingService, type LoadModelVersionArgs } from './preprocessing.service';
export type {
  ClassificationPostprocess,
  EmbeddingPostprocess,
  EncodedBatch,
  Int64Tensor,
  LabelScore,
  ModelInputsConfig,
  OutputTensor,
  Prediction,
  PreprocessingManifest,
  TextInput,
  TokenizeResult,
} from './preprocessing.types';
export { batchTensors, int64TensorBytes } from './raw-input.contents';
export { TextInputGuard } from './text-input.guard';
export { TokenizerCache, type TokenizerFile } from './tokenizer.cache';
export { pairKeepLengths } from './truncation';
