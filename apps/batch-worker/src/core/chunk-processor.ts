import { performance } from 'node:perf_hooks';
import {
  TERMINAL_STATES,
  chunkPayloadSchema,
  type ChunkPayload,
  type ItemResult,
  type JobItem,
  type JobRecord,
  type JobRepository,
} from '@mesh/jobs';
import { isRetryable } from '@mesh/errors';
import type { Span } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { ChunkInference, PinnedModel } from './chunk-inference';
import type { ChunkRunner } from './chunk-runner';
import { endChunkSpan, jobTraceOf, recordParked, startChunkSpan } from './chunk.trace';
import { errorCodeOf } from './error-code';
import type { ColdStartRequester } from './cold-start-requester';
import type { WorkerMetrics } from './worker.metrics';

/** What the processor needs of a BullMQ job (kept small so the core does not depend on bullmq). */
export interface ChunkJobHandle {
  id?: string;
  data: unknown;
  attemptsMade: number;
  opts: { attempts?: number };
}

export type ChunkOutcome = 'written' | 'skipped' | 'waiting' | 'failed_items';

/** Thrown to tell the queue edge to park the chunk and try again later (waiting_for_version). */
export class WaitForVersion extends Error {
  constructor(
    readonly reason: string,
    /** The version is resident nowhere and its load was asked of the placer. */
    readonly coldStart = false,
  ) {
    super(reason);
  }
}

/**
 * One chunk of a job, start to end: skip it if the job has ended (cancelled), pause the job
 * while its pinned version is unroutable (never switch versions), otherwise run the items and
 * write the chunk's results idempotently. Transient backend errors are rethrown for BullMQ's
 * retry with backoff until the last attempt, which writes item errors instead so the job can
 * still finish; anything else becomes item errors at once.
 */
export class ChunkProcessor<V extends PinnedModel> {
  constructor(
    private readonly repository: JobRepository,
    private readonly inference: ChunkInference<V>,
    private readonly runner: ChunkRunner<V>,
    private readonly metrics: WorkerMetrics,
    private readonly logger: Logger,
    private readonly batching: { inFlightBatches: number; batchRows: number },
    /** Asks the placer for a pinned version resident nowhere; absent: chunks only wait. */
    private readonly coldStarts?: Pick<ColdStartRequester, 'ask'>,
  ) {}

  async process(job: ChunkJobHandle): Promise<ChunkOutcome> {
    const started = performance.now();
    const outcome = await this.handle(job).catch((err: unknown) => {
      const kind = err instanceof WaitForVersion ? 'waiting' : 'retried';
      this.metrics.chunks.inc({ outcome: kind });
      throw err;
    });
    this.metrics.chunks.inc({ outcome });
    this.metrics.chunkSeconds.observe({ outcome }, (performance.now() - started) / 1000);
    return outcome;
  }

  /** A chunk BullMQ gave up on (e.g. stalled too often) still gets a result per item. */
  async failedForGood(data: unknown, err: Error): Promise<void> {
    const payload = chunkPayloadSchema.safeParse(data);
    if (!payload.success) return;
    const { jobId, chunk } = payload.data;
    if (await this.repository.readResults(jobId, chunk)) return;
    const items = await this.repository.readItems(jobId, chunk);
    if (!items) return;
    await this.writeErrors(jobId, chunk, items, 'CHUNK_FAILED', err.message);
  }

  private async handle(job: ChunkJobHandle): Promise<ChunkOutcome> {
    const payload: ChunkPayload = chunkPayloadSchema.parse(job.data);
    const { jobId, chunk } = payload;
    const record = await this.repository.get(jobId);
    if (!record || TERMINAL_STATES.has(record.state)) return 'skipped';
    const traceparent = jobTraceOf(record);
    if (traceparent === undefined) return this.run(job, record, chunk, undefined);
    // Every attempt (a retry, a parked chunk back from its wait) is a span of its own.
    const span = startChunkSpan(traceparent, record, chunk, job.attemptsMade);
    try {
      const outcome = await this.run(job, record, chunk, span);
      // A chunk that failed for good ended its span with the error's code already.
      if (outcome !== 'failed_items') endChunkSpan(span, outcome === 'written' ? 'ok' : outcome);
      return outcome;
    } catch (err: unknown) {
      if (err instanceof WaitForVersion) {
        recordParked(span, err.reason, err.coldStart);
        endChunkSpan(span, 'waiting');
      } else {
        endChunkSpan(span, errorCodeOf(err), err instanceof Error ? err.message : String(err));
      }
      throw err;
    }
  }

  private async run(
    job: ChunkJobHandle,
    record: JobRecord,
    chunk: number,
    span: Span | undefined,
  ): Promise<ChunkOutcome> {
    const jobId = record.id;
    const version = this.inference.servable(record.model, record.version);
    if (!version) {
      const why = `${record.model} v${record.version} is not servable by this worker`;
      await this.repository.markWaiting(jobId, why);
      throw new WaitForVersion(why);
    }
    await this.waitIfUnroutable(jobId, version);
    await this.repository.markRunning(jobId, Date.now());
    const items = await this.repository.readItems(jobId, chunk);
    if (!items) return 'skipped';
    span?.setAttribute('mesh.chunk.items', items.length);
    let results: ItemResult[];
    try {
      results = await this.runner.run(version, items, {
        ...this.batching,
        requestId: `${jobId}/${chunk}/${job.attemptsMade}`,
        ...(span ? { span } : {}),
      });
    } catch (err: unknown) {
      const message = err instanceof Error ? err.message : String(err);
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      // The one table decides: unavailable, timed out or throttled retries; bad input does not.
      if (isRetryable(err)) {
        // The version went away mid-chunk (unloaded, backend gone): park, spend no attempt.
        await this.waitIfUnroutable(jobId, version);
        if (!lastAttempt) throw err;
      }
      this.logger.warn(
        { event: 'chunk-failed', jobId, chunk, err: message },
        'chunk failed for good',
      );
      const code = errorCodeOf(err);
      await this.writeErrors(jobId, chunk, items, code, message);
      if (span) {
        span.setAttribute('mesh.items.failed', items.length);
        endChunkSpan(span, code, message);
      }
      return 'failed_items';
    }
    await this.repository.writeResults(jobId, chunk, items, results);
    const reasons = results.flatMap((r) => (r.kind === 'error' ? [r.error.code] : []));
    this.metrics.processed(results.length - reasons.length, reasons.length, reasons);
    span?.setAttributes({
      'mesh.items.succeeded': results.length - reasons.length,
      'mesh.items.failed': reasons.length,
    });
    return 'written';
  }

  /**
   * Marks the job waiting_for_version and parks the chunk while its pinned version is
   * unroutable; a version resident on no backend (cold) is asked for from the placer first.
   */
  private async waitIfUnroutable(jobId: string, version: V): Promise<void> {
    const { model, version: v } = version;
    const unroutable = this.inference.unroutableReason(model, v);
    if (unroutable === undefined) return;
    const cold = this.inference.isCold?.(model, v) === true;
    if (cold) this.coldStarts?.ask(model, v);
    const reason = cold
      ? `${model} v${v} is loading: no backend serves it yet, its load was asked for`
      : unroutable;
    await this.repository.markWaiting(jobId, reason);
    throw new WaitForVersion(reason, cold && this.coldStarts !== undefined);
  }

  private async writeErrors(
    jobId: string,
    chunk: number,
    items: readonly JobItem[],
    code: string,
    message: string,
  ): Promise<void> {
    const results = items.map((): ItemResult => ({ kind: 'error', error: { code, message } }));
    await this.repository.writeResults(jobId, chunk, items, results);
    this.metrics.processed(
      0,
      items.length,
      results.map(() => code),
    );
  }
}
