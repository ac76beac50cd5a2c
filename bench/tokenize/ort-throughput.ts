import { existsSync } from 'node:fs';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { EncodedBatch } from '@mesh/preprocessing';

export interface OrtResult {
  model: string;
  threads: string;
  batch: number;
  seqLength: number;
  textsPerSec: number;
  cpuMsPerText: number;
}

/**
 * Raw ORT throughput of one model on pre-tokenized batches (the "raw ORT" arm of
 * BENCHMARKS.md): the host's saturation ceiling the tokenizer has to keep up with.
 */
export async function measureOrt(
  modelFile: string,
  batch: EncodedBatch,
  seconds: number,
): Promise<OrtResult | undefined> {
  if (!existsSync(modelFile)) return undefined;
  const session = await InferenceSession.create(modelFile, {
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const shape = [batch.batchSize, batch.seqLength];
  const feeds: Record<string, Tensor> = {};
  for (const t of batch.tensors) {
    if (session.inputNames.includes(t.name)) feeds[t.name] = new Tensor('int64', t.data, shape);
  }
  for (let i = 0; i < 3; i++) await session.run(feeds); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let runs = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await session.run(feeds);
    runs++;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await session.release();
  const texts = runs * batch.batchSize;
  return {
    model: modelFile,
    threads: 'intra-op 2, inter-op 1',
    batch: batch.batchSize,
    seqLength: batch.seqLength,
    textsPerSec: texts / wall,
    cpuMsPerText: (cpu.user + cpu.system) / 1000 / texts,
  };
}
