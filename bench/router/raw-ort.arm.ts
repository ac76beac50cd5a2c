import * as ort from 'onnxruntime-node';
import type { EncodedBatch } from '@mesh/preprocessing';
import type { BenchModel } from './bench-model.loader';

/**
 * The ceiling: onnxruntime-node in this process on pre-tokenized tensors (tokenized before
 * timing), one `session.run` per batch of `batchSize` corpus items.
 */
export class RawOrtArm {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly output: string,
  ) {}

  static async create(model: BenchModel, intra: number, inter: number): Promise<RawOrtArm> {
    const session = await ort.InferenceSession.create(model.modelPath, {
      intraOpNumThreads: intra,
      interOpNumThreads: inter,
      graphOptimizationLevel: 'all',
    });
    return new RawOrtArm(session, model.pre.manifest.postprocess.output);
  }

  /** Feeds for consecutive corpus slices of `batchSize`, prepared once. */
  static prepare(
    model: BenchModel,
    corpus: readonly string[],
    batchSize: number,
  ): Record<string, ort.Tensor>[] {
    const feeds: Record<string, ort.Tensor>[] = [];
    for (let i = 0; i + batchSize <= corpus.length && feeds.length < 64; i += batchSize) {
      const batch: EncodedBatch = model.pre.encode(
        corpus.slice(i, i + batchSize).map((text) => ({ text })),
      );
      const f: Record<string, ort.Tensor> = {};
      for (const t of [batch.inputIds, batch.attentionMask, batch.tokenTypeIds]) {
        f[t.name] = new ort.Tensor('int64', t.data, t.shape);
      }
      feeds.push(f);
    }
    return feeds;
  }

  async run(feeds: Record<string, ort.Tensor>): Promise<void> {
    const out = await this.session.run(feeds);
    if (!out[this.output]) throw new Error(`no output ${this.output}`);
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
