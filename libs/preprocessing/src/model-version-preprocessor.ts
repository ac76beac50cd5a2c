import type { PreprocessManifest } from '@mesh/model-repository';
import type { BatchEncoder } from './batch-encoder';
import { mergeBatches } from './encoded-batch-merge';
import type { OutputPostprocessor } from './output-postprocessor';
import type { PipelineDefinition } from './pipeline-registry';
import type {
  EncodedBatch,
  OutputTensor,
  Prediction,
  TextInput,
  TokenizeResult,
} from './preprocessing.types';

/**
 * Everything needed to serve one loaded model version: its pipeline, tokenizer and
 * postprocessing, already checked against its manifest and model config. Immutable.
 */
export class ModelVersionPreprocessor {
  constructor(
    readonly model: string,
    readonly version: string,
    readonly pipeline: PipelineDefinition,
    readonly manifest: Readonly<PreprocessManifest>,
    readonly tokenizerSha256: string,
    private readonly encoder: BatchEncoder,
    private readonly postprocessor: OutputPostprocessor,
  ) {}

  /** INT64 tensors for a batch (see EncodedBatch); throws InputTooLargeError / InputValidationError. */
  encode(inputs: readonly TextInput[]): EncodedBatch {
    return this.encoder.encode(inputs);
  }

  /** Several batches as one call's tensors (see mergeBatches), e.g. coalesced requests. */
  merge(batches: readonly EncodedBatch[]): EncodedBatch {
    return mergeBatches(batches, this.encoder.padId);
  }

  /** Classification labels by output index (empty for embeddings or without labels.txt). */
  get labels(): readonly string[] {
    return this.postprocessor.labels;
  }

  /** What the model will see for one input (tokens, ids, mask, type ids, truncated). */
  tokenize(input: TextInput): TokenizeResult {
    return this.encoder.tokenize(input);
  }

  /** One prediction per batch row, in order. */
  postprocess(
    output: OutputTensor,
    batch: Pick<EncodedBatch, 'batchSize' | 'attentionMask'>,
  ): Prediction[] {
    return this.postprocessor.postprocess(output, batch);
  }
}
