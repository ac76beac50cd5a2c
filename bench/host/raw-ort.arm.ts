import * as ort from 'onnxruntime-node';
import { bertInputs, type TokenRow } from './host-bench.corpus';
import type { Step } from './host-bench.driver';

/** The host's default `max_padding_ratio` (apps/model-host/src/repository/batching-policy.ts). */
const MAX_PADDING_RATIO = 1.25;

export interface ThreadBudget {
  intraOpThreads: number;
  interOpThreads: number;
  graphOptimizationLevel: 'all';
}

/** The ceiling: one in-process session, the same thread budget, batches of `batch` rows. */
export class RawOrtArm {
  private constructor(private readonly session: ort.InferenceSession) {}

  static async open(modelPath: string, budget: ThreadBudget): Promise<RawOrtArm> {
    const session = await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: budget.intraOpThreads,
      interOpNumThreads: budget.interOpThreads,
      graphOptimizationLevel: budget.graphOptimizationLevel,
      executionMode: 'sequential',
    });
    return new RawOrtArm(session);
  }

  /**
   * Each step runs up to `batch` rows as one padded batch, formed from the corpus stream with
   * the host's default rules (no row padded beyond MAX_PADDING_RATIO × its own length, i.e.
   * longest ≤ ratio × shortest, and ≤ `maxBatchTokens`; rows that do not fit wait for a later
   * batch), so the ceiling pads no more than the host does.
   */
  step(corpus: readonly TokenRow[], batch: number, maxBatchTokens: number): Step {
    let next = 0;
    let deferred: TokenRow[] = [];
    const form = (): TokenRow[] => {
      const rows: TokenRow[] = [];
      const skipped: TokenRow[] = [];
      let longest = 0;
      let shortest = Infinity;
      const candidates = () =>
        deferred.length > 0 ? deferred.shift()! : corpus[next++ % corpus.length]!;
      for (let scanned = 0; rows.length < batch && scanned < batch * 4; scanned++) {
        const row = candidates();
        const l = Math.max(longest, row.length);
        const s = Math.min(shortest, row.length);
        const padded = (rows.length + 1) * l;
        const tooPadded = l > MAX_PADDING_RATIO * s;
        if (rows.length > 0 && (tooPadded || (maxBatchTokens > 0 && padded > maxBatchTokens))) {
          skipped.push(row);
          continue;
        }
        rows.push(row);
        longest = l;
        shortest = s;
      }
      deferred = [...skipped, ...deferred];
      return rows;
    };
    return async () => {
      const rows = form();
      const { shape, ids, mask, types } = bertInputs(rows);
      const t0 = performance.now();
      await this.session.run({
        input_ids: new ort.Tensor('int64', ids, shape),
        attention_mask: new ort.Tensor('int64', mask, shape),
        token_type_ids: new ort.Tensor('int64', types, shape),
      });
      const end = performance.now();
      return rows.map(() => ({ endMs: end, latencyMs: end - t0, ok: true }));
    };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
