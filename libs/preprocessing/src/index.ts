export { BatchEncoder, type EncoderOptions } from './batch-encoder';
export { BertTokenizer, type SegmentTokens, type TemplatePiece } from './bert-tokenizer';
export {
  BLANK_TEXT_MESSAGE,
  codePointLength,
  exceedsChars,
  inputCapabilityError,
  inputName,
  isBlankText,
  NON_BLANK_TEXT,
  pairCapabilityError,
  type InputCapabilities,
  type InputNaming,
} from './input-capability';
export { mergeBatches, splitOutput } from './encoded-batch-merge';
export { ModelVersionPreprocessor } from './model-version-preprocessor';
export { OutputPostprocessor } from './output-postprocessor';
export { PipelineRegistry, type PipelineDefinition } from './pipeline-registry';
export {
  InputTooLargeError,
  InputValidationError,
  OutputShapeError,
  PreprocessingMismatchError,
  type PreprocessingMismatchCode,
} from './preprocessing.errors';
export { PreprocessingService, type LoadModelVersionArgs } from './preprocessing.service';
export type {
  EncodedBatch,
  Int64Tensor,
  LabelScore,
  OutputTensor,
  Prediction,
  TextInput,
  TokenizeResult,
} from './preprocessing.types';
export { batchTensors, int64TensorBytes } from './raw-input-contents';
export { TextInputGuard } from './text-input.hook';
export { TokenizerCache, type TokenizerFile } from './tokenizer-cache';
export { longestFirstKeep } from './truncation';
