/**
 * One raw-ORT session in its own worker thread: runs the given pre-tokenized batches back to
 * back for a fixed time and reports each batch's latency. Two of these with 1 intra-op thread
 * each really run in parallel (`session.run` blocks its calling thread).
 * Only relative/package imports: this file runs compiled or under tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-node';
import type { RawWorkerInit, RawWorkerJob, RawWorkerReply } from './raw-ort.protocol';

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const init = workerData as RawWorkerInit;
  const spin = init.allowSpinning ? '1' : '0';
  const session = await ort.InferenceSession.create(init.modelPath, {
    intraOpNumThreads: init.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: spin }, inter_op: { allow_spinning: spin } } },
  });
  port.on('message', (job: RawWorkerJob) => {
    void (async () => {
      const feeds = job.batches.map((b) => {
        const f: Record<string, ort.Tensor> = {};
        for (const t of b.tensors) {
          f[t.name] = new ort.Tensor('int64', new BigInt64Array(t.buffer), t.dims);
        }
        return { feeds: f, items: b.items, tokens: b.tokens };
      });
      for (let i = 0; i < job.warmupRuns; i++) await session.run(feeds[i % feeds.length]!.feeds);
      const latencies: number[] = [];
      let items = 0;
      let tokens = 0;
      const start = performance.now();
      for (let i = 0; performance.now() - start < job.durationMs; i++) {
        const b = feeds[i % feeds.length]!;
        const t0 = performance.now();
        await session.run(b.feeds);
        latencies.push(performance.now() - t0);
        items += b.items;
        tokens += b.tokens;
      }
      const reply: RawWorkerReply = {
        latencies,
        items,
        tokens,
        seconds: (performance.now() - start) / 1000,
      };
      port.postMessage(reply);
    })();
  });
  port.postMessage('ready');
}

if (parentPort) void main(parentPort);
