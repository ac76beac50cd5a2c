import { performance } from 'node:perf_hooks';
import { loadBenchModel } from '../router/bench-model.loader';
import { RawOrtArm } from '../router/raw-ort.arm';

export interface CeilingResult {
  bestItemsPerSecond: number;
  byBatchSize: Record<string, number>;
  threads: string;
}

/** Raw in-process ORT on pre-tokenized corpus batches: the best items/s over batch sizes. */
export async function rawCeiling(
  models: string,
  model: string,
  version: number,
  corpus: readonly string[],
  seconds: number,
): Promise<CeilingResult> {
  const bench = await loadBenchModel(models, model, version);
  const arm = await RawOrtArm.create(bench, 2, 1);
  const byBatchSize: Record<string, number> = {};
  try {
    for (const size of [16, 32, 64]) {
      const feeds = RawOrtArm.prepare(bench, corpus, size);
      for (let i = 0; i < 3; i++) await arm.run(feeds[i % feeds.length]!);
      let items = 0;
      const start = performance.now();
      for (let i = 0; performance.now() - start < seconds * 1000; i++) {
        await arm.run(feeds[i % feeds.length]!);
        items += size;
      }
      byBatchSize[size] = Math.round(items / ((performance.now() - start) / 1000));
    }
  } finally {
    await arm.close();
  }
  return {
    bestItemsPerSecond: Math.max(...Object.values(byBatchSize)),
    byBatchSize,
    threads: 'one session, intra-op 2 / inter-op 1',
  };
}
