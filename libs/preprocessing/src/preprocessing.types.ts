/** A text, or a text pair (e.g. question + passage). */
export interface TextInput {
  text: string;
  textPair?: string;
}

/** One named INT64 tensor, row-major. */
export interface Int64Tensor {
  name: string;
  datatype: 'INT64';
  shape: [number, number];
  data: BigInt64Array;
}

/**
 * A batch ready for inference: three INT64 tensors of shape [batch, seq], plus per-item
 * token counts (real tokens, special tokens included, padding excluded) for length-aware
 * batching and whether each item was truncated.
 */
export interface EncodedBatch {
  batchSize: number;
  seqLength: number;
  inputIds: Int64Tensor;
  attentionMask: Int64Tensor;
  tokenTypeIds: Int64Tensor;
  /** The tensors the model takes, named as in its manifest (type ids only if it names them). */
  tensors: Int64Tensor[];
  tokenCounts: Int32Array;
  truncated: boolean[];
}

/** What the model sees for one input (like TEI's /tokenize), without padding. */
export interface TokenizeResult {
  tokens: string[];
  ids: number[];
  attentionMask: number[];
  typeIds: number[];
  specialTokensMask: number[];
  truncated: boolean;
}

/** One label and its score. */
export interface LabelScore {
  label: string;
  score: number;
}

/**
 * One item's answer. Classification: the best label and its score, and `scores` with the
 * top-K labels, best first. Embedding: the pooled vector (L2-normalised when the manifest
 * asks for it).
 */
export type Prediction =
  | { kind: 'classification'; label: string; score: number; scores: LabelScore[] }
  | { kind: 'embedding'; embedding: number[] };

/** A float model output, row-major. */
export interface OutputTensor {
  shape: readonly number[];
  data: Float32Array;
}
