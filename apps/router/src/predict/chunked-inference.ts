import { performance } from 'node:perf_hooks';
import type { EncodedBatch, OutputTensor, TextInput } from '@mesh/preprocessing';
import type { InferenceGateway, InferenceMeta, ServableVersion } from '@mesh/inference';
import { endSpan, traceparentOf, type Span } from '@mesh/telemetry';
import { describeError } from '../errors/error-view';
import type { CoalescedInference } from './coalesced-inference';
import type { CallContext, Prediction } from './predict-commands';
import { recordStage, startBackendCallSpan } from './request.trace';
import type { RouterMetrics } from '../router.metrics';

/**
 * How one request's texts become backend calls: chunks of at most the model's max_batch_size
 * rows, each tokenized, sent (merged with concurrent predicts where allowed) and postprocessed,
 * with stage timings and the backend call's span.
 */
export class ChunkedInference {
  constructor(
    private readonly inference: InferenceGateway,
    private readonly metrics: RouterMetrics,
    /** Merges concurrent single predicts of a version into shared calls; absent = one call each. */
    private readonly coalesced?: CoalescedInference,
  ) {}

  /**
   * One inference call per chunk of at most the model's max_batch_size rows (each chunk padded
   * on its own), sent concurrently so the backend's batcher can interleave them; answers in order.
   * Several texts go at Triton priority 2 (bulk class): a single online predict, at 1, is then
   * never queued behind them, and the host keeps the two apart in its batches.
   */
  async infer(
    ctx: CallContext,
    version: ServableVersion,
    inputs: TextInput[],
  ): Promise<Prediction[]> {
    const rows = version.maxBatchSize > 0 ? version.maxBatchSize : 1;
    const priority = inputs.length > 1 ? 2 : 1;
    const chunks: TextInput[][] = [];
    for (let i = 0; i < inputs.length; i += rows) chunks.push(inputs.slice(i, i + rows));
    const answers = await Promise.all(
      chunks.map((chunk) => this.inferChunk(ctx, version, chunk, priority)),
    );
    return answers.flat();
  }

  private async inferChunk(
    ctx: CallContext,
    version: ServableVersion,
    inputs: TextInput[],
    priority: 1 | 2,
  ): Promise<Prediction[]> {
    let t = performance.now();
    const batch: EncodedBatch = version.encode(inputs);
    const tokenized = this.lap('tokenize', version, t);
    recordStage(ctx.span, 'tokenize', t, tokenized, version, { 'mesh.rows': batch.batchSize });
    t = tokenized;
    // Online single predicts may share a call with concurrent ones; several texts are already
    // a batch of their own (bulk class, priority 2) and go as they are.
    const output =
      this.coalesced && priority === 1 && version.maxBatchSize > 1
        ? await this.coalesced.infer(version, batch, {
            requestId: ctx.requestId,
            traceparent: ctx.traceparent,
            ...(ctx.span ? { span: ctx.span } : {}),
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          })
        : await this.inferAlone(ctx, version, batch, priority);
    t = this.lap('infer', version, t);
    const predictions = version.postprocess(output, batch);
    const done = this.lap('postprocess', version, t);
    recordStage(ctx.span, 'postprocess', t, done, version);
    return predictions;
  }

  /** One backend call of this request alone; traced as its client span when tracing is on. */
  private inferAlone(
    ctx: CallContext,
    version: ServableVersion,
    batch: EncodedBatch,
    priority: 1 | 2,
  ): Promise<OutputTensor> {
    const meta: InferenceMeta = {
      requestId: ctx.requestId,
      traceparent: ctx.traceparent,
      priority,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    };
    return ctx.span
      ? this.inferTraced(ctx.span, version, batch, meta)
      : this.inference.infer(version, batch, meta);
  }

  /** The call under its client span, whose context is the `traceparent` the backend gets. */
  private async inferTraced(
    request: Span,
    version: ServableVersion,
    batch: EncodedBatch,
    meta: InferenceMeta,
  ): Promise<OutputTensor> {
    const span = startBackendCallSpan(version, [request], batch.batchSize);
    try {
      const output = await this.inference.infer(version, batch, {
        ...meta,
        traceparent: traceparentOf(span),
      });
      endSpan(span, 'ok');
      return output;
    } catch (err: unknown) {
      endSpan(span, describeError(err).code, (err as Error).message);
      throw err;
    }
  }

  private lap(
    stage: 'tokenize' | 'infer' | 'postprocess',
    v: ServableVersion,
    start: number,
  ): number {
    const now = performance.now();
    this.metrics.stage(stage, v.model, v.version, (now - start) / 1000);
    return now;
  }
}
