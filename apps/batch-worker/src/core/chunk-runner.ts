import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ItemResult, JobItem } from '@mesh/jobs';
import { endSpan, recordChildSpan, traceparentOf, type Span } from '@mesh/telemetry';
import {
  BLANK_TEXT_MESSAGE,
  codePointLength,
  exceedsChars,
  isBlankText,
  type EncodedBatch,
  type Prediction,
  type TextInput,
} from '@mesh/preprocessing';
import type { ChunkInference, PinnedModel } from './chunk-inference';
import { startBackendCallSpan } from './chunk.trace';
import { errorCodeOf } from './error-code';

export interface ChunkRunOptions {
  /** Batches sent before the first answer is back: keeps the backend busy while we tokenize. */
  inFlightBatches: number;
  /**
   * Rows per inference call (capped by max_batch_size). A running batch cannot be interrupted,
   * so this bounds how long an online request on the same instance waits behind bulk work.
   */
  batchRows: number;
  requestId: string;
  /** The chunk's span (traced jobs only): each batch's tokenize and backend call go under it. */
  span?: Span;
}

/**
 * Runs one chunk on its pinned version: empty or whitespace-only texts become INVALID_ARGUMENT
 * item errors (the code the router answers for them), texts over the manifest's hardMaxChars
 * TEXT_TOO_LONG item errors, the rest is sorted by length (so a batch pads little), tokenized
 * with the version's pipeline and inferred in batches of `batchRows` at Triton priority 2, a
 * few batches in flight. Results keep the chunk's input order. The event loop gets a
 * turn between batches, so BullMQ's lock renewal is never starved by tokenization.
 * Backend errors propagate (the processor decides between retry and item errors); input an
 * encoder refuses becomes an error on that item only.
 */
export class ChunkRunner<V extends PinnedModel> {
  constructor(private readonly inference: ChunkInference<V>) {}

  async run(
    version: V,
    items: readonly JobItem[],
    options: ChunkRunOptions,
  ): Promise<ItemResult[]> {
    const results: (ItemResult | undefined)[] = items.map(
      (item) => blank(item) ?? tooLong(version, item),
    );
    const todo = items.flatMap((_, i) => (results[i] === undefined ? [i] : []));
    const size = (i: number) => items[i]!.text.length + (items[i]!.textPair?.length ?? 0);
    todo.sort((a, b) => size(a) - size(b) || a - b);
    const rows = Math.max(1, Math.min(options.batchRows, version.maxBatchSize || 1));
    const pending = new Set<Promise<void>>();
    // The first failed batch fails the chunk (the processor retries or writes item errors). It
    // is kept here rather than left as a rejected promise: a batch that fails while the next one
    // is tokenized would otherwise be an unhandled rejection, or leave `pending` unseen.
    let failed: { error: unknown } | undefined;
    for (let start = 0; start < todo.length; start += rows) {
      if (failed) throw failed.error;
      const indexes = todo.slice(start, start + rows);
      await yieldToLoop();
      const { span } = options;
      const encodeStart = span ? performance.now() : 0;
      const encoded = this.encode(
        version,
        indexes.map((i) => input(items[i]!)),
      );
      if (span) {
        recordChildSpan('tokenize', span, encodeStart, performance.now(), {
          'mesh.batch.rows': indexes.length,
        });
      }
      encoded.errors.forEach((error, j) => {
        if (error) results[indexes[j]!] = error;
      });
      if (!encoded.batch) continue;
      const { batch, rowsOf } = encoded;
      const call = span ? startBackendCallSpan(span, version, batch.batchSize) : undefined;
      const task = this.inference
        .infer(version, batch, {
          requestId: options.requestId,
          priority: 2,
          ...(call ? { traceparent: traceparentOf(call) } : {}),
        })
        .then(
          (output) => {
            if (call) endSpan(call, 'ok');
            version.postprocess(output, batch).forEach((p, row) => {
              results[indexes[rowsOf[row]!]!] = fromPrediction(p);
            });
          },
          (err: unknown) => {
            if (call) endSpan(call, errorCodeOf(err), (err as Error).message);
            throw err;
          },
        );
      const tracked: Promise<void> = task
        .catch((error: unknown) => {
          failed ??= { error };
        })
        .finally(() => pending.delete(tracked));
      pending.add(tracked);
      if (pending.size >= options.inFlightBatches) await Promise.race(pending);
    }
    await Promise.all(pending);
    if (failed) throw failed.error;
    return results.map((r) => r ?? internal());
  }

  /** Encodes a batch; if the encoder refuses it, finds the offending items one by one. */
  private encode(
    version: V,
    inputs: TextInput[],
  ): { batch?: EncodedBatch; rowsOf: number[]; errors: (ItemResult | undefined)[] } {
    try {
      return { batch: version.encode(inputs), rowsOf: inputs.map((_, i) => i), errors: [] };
    } catch {
      const errors: (ItemResult | undefined)[] = [];
      const good: number[] = [];
      inputs.forEach((inp, i) => {
        try {
          version.encode([inp]);
          good.push(i);
        } catch (err: unknown) {
          errors[i] = itemError(err);
        }
      });
      if (good.length === 0) return { rowsOf: [], errors };
      return { batch: version.encode(good.map((i) => inputs[i]!)), rowsOf: good, errors };
    }
  }
}

function input(item: JobItem): TextInput {
  return item.textPair === undefined
    ? { text: item.text }
    : { text: item.text, textPair: item.textPair };
}

/** An item with nothing to predict on fails alone; the job carries on (router: 400). */
function blank(item: JobItem): ItemResult | undefined {
  for (const [field, value] of [
    ['text', item.text],
    ['textPair', item.textPair],
  ] as const) {
    if (value !== undefined && isBlankText(value)) {
      return {
        kind: 'error',
        error: { code: 'INVALID_ARGUMENT', message: `${field}: ${BLANK_TEXT_MESSAGE}` },
      };
    }
  }
  return undefined;
}

function tooLong(version: PinnedModel, item: JobItem): ItemResult | undefined {
  for (const [field, value] of [
    ['text', item.text],
    ['textPair', item.textPair],
  ] as const) {
    // Characters are code points, as the router counts them.
    if (value !== undefined && exceedsChars(value, version.hardMaxChars)) {
      return {
        kind: 'error',
        error: {
          code: 'TEXT_TOO_LONG',
          message: `${field} has ${codePointLength(value)} characters; the limit of ${version.model} v${version.version} is ${version.hardMaxChars}`,
        },
      };
    }
  }
  return undefined;
}

function fromPrediction(p: Prediction): ItemResult {
  return p.kind === 'classification'
    ? { kind: 'classification', label: p.label, score: p.score, scores: p.scores }
    : { kind: 'embedding', embedding: p.embedding };
}

function itemError(err: unknown): ItemResult {
  const code = (err as { code?: unknown }).code;
  return {
    kind: 'error',
    error: {
      code: typeof code === 'string' ? code : 'INVALID_INPUT',
      message: err instanceof Error ? err.message : String(err),
    },
  };
}

function internal(): ItemResult {
  return { kind: 'error', error: { code: 'INTERNAL', message: 'item produced no result' } };
}
