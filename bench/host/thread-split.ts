/**
 * `npm run bench:thread-split [-- --mix short,mixed --seconds 4 --repeat 1 --spin]`: raw ORT, batch 1, on the
 * router benchmark's model, in worker threads as the host runs it. Answers whether an instance
 * should run a lone request on a 2-intra-op-thread session: latency of a 1-thread vs a 2-thread
 * run while the other worker is idle, CPU per item of each, and what happens when a 2-thread run
 * overlaps a 1-thread run on the other worker (3 threads on 2 cores) against two 1-thread
 * workers. The worker is inline so the experiment depends on nothing but onnxruntime-node.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildCorpus, type TextMix } from '../router/bench-corpus';
import { loadBenchModel } from '../router/bench-model.loader';
import { parseCliArgs } from '../../scripts/cli-args';
import { ROOT } from '../router/bench-processes';
import { ensureBuiltAndGenerated } from '../router/bench-setup';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
(async () => {
  const session = await ort.InferenceSession.create(workerData.modelPath, {
    intraOpNumThreads: workerData.threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: workerData.spin }, inter_op: { allow_spinning: workerData.spin } } },
  });
  parentPort.on('message', async (job) => {
    const feeds = job.rows.map((r) => {
      const ids = new BigInt64Array(r);
      const t = (d) => new ort.Tensor('int64', d, [1, ids.length]);
      return { input_ids: t(ids), attention_mask: t(new BigInt64Array(ids.length).fill(1n)),
        token_type_ids: t(new BigInt64Array(ids.length)) };
    });
    for (let i = 0; i < 3; i++) await session.run(feeds[i % feeds.length]);
    const lat = [];
    const start = performance.now();
    for (let i = job.offset; performance.now() - start < job.durationMs; i++) {
      const t0 = performance.now();
      await session.run(feeds[i % feeds.length]);
      lat.push(performance.now() - t0);
    }
    parentPort.postMessage({ lat, seconds: (performance.now() - start) / 1000 });
  });
  parentPort.postMessage('ready');
})();
`;

interface Reply {
  lat: number[];
  seconds: number;
}

const once = <T>(w: Worker) =>
  new Promise<T>((resolve, reject) => {
    w.once('error', reject);
    w.once('message', (m: T) => resolve(m));
  });

const r2 = (n: number) => Math.round(n * 100) / 100;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const { values: flags } = parseCliArgs({
    args: process.argv.slice(2),
    options: {
      mix: { type: 'string' },
      seconds: { type: 'string' },
      repeat: { type: 'string' },
      spin: { type: 'boolean' },
    },
  });
  const mixes = (flags.mix ?? 'short,mixed').split(',') as TextMix[];
  const seconds = Number(flags.seconds ?? 4);
  const repeat = Number(flags.repeat ?? 1);
  const models = join(ROOT, '.bench-models');
  ensureBuiltAndGenerated(models, 'intent-zh');
  const model = await loadBenchModel(models, 'intent-zh', 2);
  const spawn = async (threads: number, spin = false) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: {
        modelPath: model.modelPath,
        threads,
        spin: spin ? '1' : '0',
        ort: require.resolve('onnxruntime-node'),
      },
    });
    await once<string>(w);
    return w;
  };
  // The host's layout: one worker per core; each could also hold a 2-thread session.
  const one = [await spawn(1), await spawn(1)];
  const two = await spawn(availableParallelism());
  const spinning = flags.spin ? await spawn(availableParallelism(), true) : undefined;
  console.log(`thread-split ${new Date().toISOString()}: ${availableParallelism()} cores`);
  try {
    for (const mix of mixes) {
      const rows = buildCorpus(mix, 500).map((text) => {
        const ids = model.pre.encode([{ text }]).inputIds.data;
        return ids.slice().buffer;
      });
      const run = async (label: string, workers: Worker[]) => {
        const cpu0 = process.cpuUsage();
        const replies = await Promise.all(
          workers.map((w, k) => {
            const reply = once<Reply>(w);
            w.postMessage({ rows, offset: k * 137, durationMs: seconds * 1000 });
            return reply;
          }),
        );
        const cpu = process.cpuUsage(cpu0);
        const items = replies.reduce((n, r) => n + r.lat.length, 0);
        const wall = Math.max(...replies.map((r) => r.seconds));
        console.log(
          `${mix} ${label}: ${r2(items / wall)} items/s, ${r2((cpu.user + cpu.system) / 1000 / items)} CPU-ms per item, ` +
            `p50 per run ${replies.map((r) => r2(p50(r.lat))).join(' / ')} ms`,
        );
      };
      // Interleaved, so drift in the machine's speed hits every arm alike.
      for (let k = 0; k < repeat; k++) {
        await run('1 thread alone (other worker idle)', [one[0]!]);
        await run('2 threads alone (1-thread workers idle)', [two]);
        await run('two 1-thread workers back to back', one);
        await run('2-thread + 1-thread back to back (overlap)', [two, one[1]!]);
        if (spinning) await run('2 threads spinning alone', [spinning]);
      }
    }
  } finally {
    await Promise.all([...one, two, ...(spinning ? [spinning] : [])].map((w) => w.terminate()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
