import { OutputShapeError } from './preprocessing.errors';
import type { PostprocessSpec } from '@mesh/model-repository';
import type { EncodedBatch, LabelScore, OutputTensor, Prediction } from './preprocessing.types';

type ClassificationPostprocess = Extract<PostprocessSpec, { kind: 'classification' }>;
type EmbeddingPostprocess = Extract<PostprocessSpec, { kind: 'embedding' }>;
type Activation = ClassificationPostprocess['activation'];

/**
 * Turns model outputs into answers as the version's manifest describes: logits
 * [batch, numLabels] → label + top-K scores; hidden states [batch, seq, hidden] (or an
 * already pooled [batch, hidden]) → one vector per item.
 */
export class OutputPostprocessor {
  constructor(
    private readonly spec: PostprocessSpec,
    readonly labels: readonly string[],
  ) {}

  postprocess(
    output: OutputTensor,
    batch: Pick<EncodedBatch, 'batchSize' | 'attentionMask'>,
  ): Prediction[] {
    return this.spec.kind === 'classification'
      ? this.classify(output, batch.batchSize)
      : this.embed(output, batch.batchSize, batch.attentionMask.data);
  }

  classify(output: OutputTensor, batchSize: number): Prediction[] {
    const numLabels = output.shape[output.shape.length - 1] ?? 0;
    if (numLabels <= 0 || output.data.length !== batchSize * numLabels) {
      throw new OutputShapeError(
        `logits of shape [${output.shape.join(', ')}] (${output.data.length} values) do not fit a batch of ${batchSize}`,
      );
    }
    const spec = this.spec as ClassificationPostprocess;
    const topK = Math.max(1, Math.min(spec.topK, numLabels));
    const out: Prediction[] = [];
    for (let r = 0; r < batchSize; r++) {
      const probs = activate(
        output.data.subarray(r * numLabels, (r + 1) * numLabels),
        spec.activation,
      );
      const order = Array.from(probs.keys()).sort((a, b) => probs[b]! - probs[a]! || a - b);
      const scores: LabelScore[] = order
        .slice(0, topK)
        .map((i) => ({ label: this.labelOf(i), score: probs[i]! }));
      out.push({
        kind: 'classification',
        label: scores[0]!.label,
        score: scores[0]!.score,
        scores,
      });
    }
    return out;
  }

  embed(output: OutputTensor, batchSize: number, mask: BigInt64Array): Prediction[] {
    const spec = this.spec as EmbeddingPostprocess;
    const hidden = output.shape[output.shape.length - 1] ?? 0;
    const pooledAlready = output.shape.length === 2;
    const seq = pooledAlready ? 1 : output.data.length / Math.max(1, batchSize * hidden);
    if (hidden <= 0 || !Number.isInteger(seq) || output.data.length !== batchSize * seq * hidden) {
      throw new OutputShapeError(
        `embedding output of shape [${output.shape.join(', ')}] does not fit a batch of ${batchSize}`,
      );
    }
    if (!pooledAlready && mask.length !== batchSize * seq) {
      throw new OutputShapeError(
        `embedding output has ${seq} positions but the attention mask has ${mask.length / batchSize}`,
      );
    }
    const out: Prediction[] = [];
    for (let r = 0; r < batchSize; r++) {
      const rows = output.data.subarray(r * seq * hidden, (r + 1) * seq * hidden);
      const vector =
        pooledAlready || spec.pooling === 'cls'
          ? Float64Array.from(rows.subarray(0, hidden))
          : meanPool(rows, mask.subarray(r * seq, (r + 1) * seq), hidden);
      if (spec.normalize) l2Normalize(vector);
      out.push({ kind: 'embedding', embedding: Array.from(vector) });
    }
    return out;
  }

  private labelOf(index: number): string {
    return this.labels[index] ?? `LABEL_${index}`;
  }
}

function activate(logits: Float32Array, activation: Activation): Float64Array {
  const out = Float64Array.from(logits);
  switch (activation) {
    case 'softmax': {
      // Subtract the max so exp() never overflows.
      let max = -Infinity;
      for (const v of out) max = Math.max(max, v);
      let sum = 0;
      for (let i = 0; i < out.length; i++) sum += out[i] = Math.exp(out[i]! - max);
      for (let i = 0; i < out.length; i++) out[i]! /= sum;
      return out;
    }
    case 'sigmoid':
      for (let i = 0; i < out.length; i++) out[i] = 1 / (1 + Math.exp(-out[i]!));
      return out;
    case 'none':
      return out;
  }
}

/** Mean over the positions the attention mask marks as real tokens. */
function meanPool(rows: Float32Array, mask: BigInt64Array, hidden: number): Float64Array {
  const sum = new Float64Array(hidden);
  let count = 0;
  for (let s = 0; s < mask.length; s++) {
    if (mask[s] === 0n) continue;
    count++;
    for (let h = 0; h < hidden; h++) sum[h]! += rows[s * hidden + h]!;
  }
  if (count > 0) for (let h = 0; h < hidden; h++) sum[h]! /= count;
  return sum;
}

function l2Normalize(v: Float64Array): void {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
}
