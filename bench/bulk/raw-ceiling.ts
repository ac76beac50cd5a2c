import { loadBenchModel } from '../router/bench-model.loader';
import { RawOrtArm, rawLabel, type RawConfig } from '../router/raw-ort.arm';

export interface CeilingResult {
  bestItemsPerSecond: number;
  byConfig: Record<string, number>;
}

/**
 * Raw in-process ORT on pre-tokenized corpus batches (the router benchmark's ceiling arm): the
 * best items/s over batch size × length sorting × thread split.
 */
export async function rawCeiling(
  models: string,
  model: string,
  version: number,
  corpus: readonly string[],
  seconds: number,
): Promise<CeilingResult> {
  const bench = await loadBenchModel(models, model, version);
  const byConfig: Record<string, number> = {};
  const configs: RawConfig[] = [];
  for (const batch of [8, 16, 32, 64]) {
    configs.push({ batch, sorted: true, sessions: 1, intraOpThreads: 2, allowSpinning: false });
    configs.push({ batch, sorted: true, sessions: 2, intraOpThreads: 1, allowSpinning: false });
  }
  for (const c of configs) {
    const batches = RawOrtArm.prepare(bench, corpus, c);
    const point = await RawOrtArm.measure(bench, c, batches, seconds * 1000, 3);
    byConfig[rawLabel(c)] = Math.round(point.throughput);
  }
  return { bestItemsPerSecond: Math.max(...Object.values(byConfig)), byConfig };
}
