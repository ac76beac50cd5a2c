import type {
  EncodedBatch,
  InputCapabilities,
  ModelVersionPreprocessor,
  OutputTensor,
  Prediction,
  TextInput,
  TokenizeResult,
} from '@mesh/preprocessing';

/**
 * One model version whose preprocessing manifest, tokenizer and config were checked at load
 * and agree: everything the predict path needs to turn texts into tensors and outputs into
 * answers. Immutable.
 */
export class ServableVersion implements InputCapabilities {
  readonly model: string;
  readonly version: number;
  /** `pipeline@version`. */
  readonly pipeline: string;
  readonly kind: 'classification' | 'embedding';
  readonly maxLength: number;
  readonly hardMaxChars: number;
  /** Output tensor the postprocessing reads. */
  readonly output: string;
  /** Whether a text pair can be served (pipeline takes pairs, model is no embedder). */
  readonly pairs: boolean;
  /** Classification labels by index (empty for embeddings). */
  readonly labels: readonly string[];

  constructor(
    private readonly pre: ModelVersionPreprocessor,
    /** sha256 of the model.onnx the manifest names (checked against each backend's config). */
    readonly modelSha256: string,
    /** config.pbtxt `max_batch_size`: the most rows one inference call may carry (0 = no batching). */
    readonly maxBatchSize: number,
  ) {
    this.model = pre.model;
    this.version = Number(pre.version);
    this.pipeline = pre.pipeline.id;
    this.kind = pre.manifest.postprocess.kind;
    this.maxLength = pre.manifest.maxLength;
    this.hardMaxChars = pre.manifest.hardMaxChars;
    this.output = pre.manifest.postprocess.output;
    this.pairs = pre.pipeline.pairs && this.kind !== 'embedding';
    this.labels = this.kind === 'classification' ? pre.labels : [];
  }

  encode(items: readonly TextInput[]): EncodedBatch {
    return this.pre.encode(items);
  }

  /** Batches of this version as one call's tensors, each row padded to the longest. */
  merge(batches: readonly EncodedBatch[]): EncodedBatch {
    return this.pre.merge(batches);
  }

  tokenize(item: TextInput): TokenizeResult {
    return this.pre.tokenize(item);
  }

  /** One prediction per batch row, in order. */
  postprocess(output: OutputTensor, batch: EncodedBatch): Prediction[] {
    return this.pre.postprocess(output, batch);
  }
}
