import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { latencyStats, round, type PointResult } from './bench-measure';
import type { BenchModel } from './bench-model.loader';
import type { RawBatch, RawWorkerInit, RawWorkerJob, RawWorkerReply } from './raw-ort.protocol';

/** One way of running the model in-process: the ceiling is the best of these. */
export interface RawConfig {
  batch: number;
  /** Sort each window of `window` items by length before cutting batches. */
  sorted: boolean;
  /** Items sorted together (default SORT_WINDOW); 32 is all a host queue at c=32 can hold. */
  window?: number;
  /** Sessions, each in its own worker thread, splitting the cores between them. */
  sessions: number;
  intraOpThreads: number;
  allowSpinning: boolean;
}

/** Items sorted together by length (what a host queue of this depth could do). */
export const SORT_WINDOW = 256;

export function rawLabel(c: RawConfig): string {
  return (
    `raw b${c.batch}${c.batch > 1 ? (c.sorted ? ` sorted${c.window ? ` in ${c.window}` : ''}` : ' arrival') : ''} ` +
    `${c.sessions}x${c.intraOpThreads}t${c.allowSpinning ? ' spin' : ''}`
  );
}

function workerEntry(): { file: string; execArgv: string[] } {
  const js = join(__dirname, 'raw-ort.worker.js');
  if (existsSync(js)) return { file: js, execArgv: [] };
  return {
    file: join(__dirname, 'raw-ort.worker.ts'),
    execArgv: ['--require', require.resolve('tsx/cjs')],
  };
}

/**
 * The ceiling: onnxruntime-node on pre-tokenized tensors (tokenized before timing), batches run
 * back to back in one or more worker threads. Same model file, graph optimisation `all`.
 */
export class RawOrtArm {
  /**
   * Batches of `batch` items cut from the whole corpus, in arrival order or sorted by length
   * per window, then put in a low-discrepancy order of their length (see `evenOrder`): a run
   * that stops on time has then sampled short and long batches in the corpus's proportions.
   * Cutting sorted windows and running them from the start would time only the shortest
   * batches of each window, and a mixed corpus would look as cheap as a short one.
   */
  static prepare(model: BenchModel, corpus: readonly string[], c: RawConfig): RawBatch[] {
    const batches: RawBatch[] = [];
    const counts = corpus.map((text) => model.pre.encode([{ text }]).tokenCounts[0] ?? 0);
    const window = c.window ?? SORT_WINDOW;
    for (let w = 0; w < corpus.length; w += window) {
      const idx = Array.from({ length: Math.min(window, corpus.length - w) }, (_, i) => w + i);
      if (c.sorted) idx.sort((a, b) => (counts[a] ?? 0) - (counts[b] ?? 0));
      for (let i = 0; i + c.batch <= idx.length; i += c.batch) {
        const enc = model.pre.encode(idx.slice(i, i + c.batch).map((k) => ({ text: corpus[k]! })));
        batches.push({
          items: c.batch,
          tokens: enc.tokenCounts.reduce((a, b) => a + b, 0),
          tensors: [enc.inputIds, enc.attentionMask, enc.tokenTypeIds].map((t) => ({
            name: t.name,
            dims: [...t.shape],
            buffer: t.data.slice().buffer,
          })),
        });
      }
    }
    return evenOrder(batches, (b) => b.tensors[0]!.dims[1] ?? 0);
  }

  /** Real tokens per item over the prepared batches (what a representative run samples). */
  static tokensPerItem(batches: readonly RawBatch[]): number {
    const items = batches.reduce((s, b) => s + b.items, 0);
    return items === 0 ? 0 : batches.reduce((s, b) => s + b.tokens, 0) / items;
  }

  /** Runs every session's worker for `durationMs` at once; CPU is this whole process's. */
  static async measure(
    model: BenchModel,
    c: RawConfig,
    batches: RawBatch[],
    durationMs: number,
    warmupRuns: number,
  ): Promise<PointResult & { tokensPerItem: number }> {
    const entry = workerEntry();
    const init: RawWorkerInit = {
      modelPath: model.modelPath,
      intraOpThreads: c.intraOpThreads,
      allowSpinning: c.allowSpinning,
    };
    const workers = Array.from(
      { length: c.sessions },
      () => new Worker(entry.file, { workerData: init, execArgv: entry.execArgv }),
    );
    try {
      await Promise.all(workers.map((w) => next<string>(w)));
      const cpu0 = process.cpuUsage();
      const replies = await Promise.all(
        workers.map((w, k) => {
          // Each session starts at a different batch, so they do not run the same shapes.
          const shift = Math.floor((k * batches.length) / c.sessions);
          const job: RawWorkerJob = {
            batches: [...batches.slice(shift), ...batches.slice(0, shift)],
            warmupRuns,
            durationMs,
          };
          const reply = next<RawWorkerReply>(w);
          w.postMessage(job);
          return reply;
        }),
      );
      const cpu = process.cpuUsage(cpu0);
      const items = replies.reduce((s, r) => s + r.items, 0);
      const tokens = replies.reduce((s, r) => s + r.tokens, 0);
      const seconds = Math.max(...replies.map((r) => r.seconds));
      const latencies: number[] = [];
      for (const r of replies)
        for (const l of r.latencies) for (let k = 0; k < c.batch; k++) latencies.push(l);
      const s = latencyStats(latencies);
      return {
        seconds: round(seconds, 2),
        requests: items,
        errors: 0,
        throughput: round(items / seconds, 1),
        p50: round(s.p50, 3),
        p90: round(s.p90, 3),
        p95: round(s.p95, 3),
        p99: round(s.p99, 3),
        stable: true,
        windows: 1,
        cpuPer1k: { raw: round((((cpu.user + cpu.system) / 1e6) * 1000) / items, 3) },
        tokensPerItem: round(tokens / Math.max(1, items), 1),
      };
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }
}

function next<T>(w: Worker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    w.once('error', onError);
    w.once('message', (m: T) => {
      w.off('error', onError);
      resolve(m);
    });
  });
}

/**
 * `items` sorted by `key`, then visited in golden-ratio steps: every prefix of the result (and
 * every run that starts part-way and wraps) holds small and large keys in about the
 * proportions of the whole list.
 */
export function evenOrder<T>(items: readonly T[], key: (item: T) => number): T[] {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  const n = sorted.length;
  const golden = (Math.sqrt(5) - 1) / 2;
  const slots = sorted.map((_, k) => ({ k, at: (k * golden) % 1 }));
  slots.sort((a, b) => a.at - b.at);
  // slot rank r gets the r-th smallest item; reading slots in k order spreads the ranks evenly.
  const byK = new Array<T>(n);
  slots.forEach((slot, rank) => (byK[slot.k] = sorted[rank]!));
  return byK;
}
