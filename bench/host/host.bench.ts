/**
 * `npm run bench:host [-- --quick] [--runs N] [--mix mixed|short|long] [--intra-op N]
 * [--batch-tokens N]`: the
 * embedded model host against raw in-process ORT on the same small model and thread budget
 * (one session, intra-op N, default 1 as the host's default), with dynamic batching on and
 * off, at concurrency 1/8/32/64. Writes docs/benchmarks/host.{json,md}.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { buildCorpus, lengthHistogram, type TextMix } from './host-bench.corpus';
import { processCpuSeconds, selfCpuSeconds } from './host-bench.cpu';
import { runClosedLoop } from './host-bench.driver';
import type { MeasureOptions, PointResult } from './host-bench.measure';
import { benchRepository, startHost } from './host-bench.processes';
import { machineLine, writeReport, type ArmName, type HostBenchResult } from './host-bench.report';
import { parseCliArgs } from '../../scripts/cli-args';
import { GrpcHostArm } from './grpc-host.arm';
import { RawOrtArm } from './raw-ort.arm';

const ROOT = join(__dirname, '..', '..');
const MODEL_DIR = join(ROOT, '.bench-models', 'sentiment-en');
const CONCURRENCY = [1, 8, 32, 64];

function parseArgs(argv: string[]) {
  const { values: v } = parseCliArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      mix: { type: 'string' },
      runs: { type: 'string' },
      'intra-op': { type: 'string' },
      'batch-tokens': { type: 'string' },
    },
  });
  const quick = v.quick ?? false;
  const mix = (v.mix ?? 'mixed') as TextMix;
  if (!['mixed', 'short', 'long'].includes(mix))
    throw new Error(`--mix must be mixed, short or long`);
  const runs = Number(v.runs ?? (quick ? 1 : 3));
  const opts: MeasureOptions = quick
    ? { warmupRequests: 30, windowMs: 4000, agreeWindows: 2, maxWindows: 3 }
    : { warmupRequests: 200, windowMs: 5000, agreeWindows: 3, maxWindows: 6 };
  return {
    quick,
    mix,
    runs,
    opts,
    intra: Number(v['intra-op'] ?? 1),
    batchTokens: Number(v['batch-tokens'] ?? 2048),
  };
}

function median(points: PointResult[]): PointResult {
  const sorted = [...points].sort((a, b) => a.throughput - b.throughput);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(join(MODEL_DIR, '1', 'model.onnx'))) {
    execSync('npm run -s models -- --size small --out .bench-models', {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  const budget = {
    intraOpThreads: args.intra,
    interOpThreads: 1,
    graphOptimizationLevel: 'all' as const,
  };
  const budgetText = `1 session × intra-op ${budget.intraOpThreads} / inter-op 1 per arm, graph optimisation all; batches ≤ ${args.batchTokens} padded tokens, no row padded beyond 1.25 × its length (host and raw alike)`;
  const loadStart = loadavg()[0] ?? 0;
  const corpus = buildCorpus(args.mix, 2000, 42);
  const hist = lengthHistogram(corpus, 32);
  console.log(`host bench: ${machineLine()}`);
  console.log(
    `thread budget: ${budgetText}; text mix ${args.mix}; lengths ${JSON.stringify(hist)}`,
  );

  const repo = benchRepository(MODEL_DIR, args.batchTokens);
  const host = await startHost(ROOT, repo.dir, {
    ORT_INTRA_OP_THREADS: String(budget.intraOpThreads),
    ORT_INTER_OP_THREADS: '1',
    ORT_GRAPH_OPTIMIZATION_LEVEL: 'all',
  });
  const raw = await RawOrtArm.open(join(MODEL_DIR, '1', 'model.onnx'), budget);
  const client = new GrpcHostArm(host.grpc);
  const hostPid = host.proc.pid!;
  await client.checkReady(['host-batching', 'host-no-batching']);
  const results = new Map<string, PointResult[]>();
  try {
    for (let run = 1; run <= args.runs; run++) {
      for (const c of CONCURRENCY) {
        const arms: Array<[ArmName, () => Promise<PointResult>]> = [
          [
            'raw-ort',
            () =>
              runClosedLoop(
                1,
                () => raw.step(corpus, c, args.batchTokens),
                args.opts,
                { bench: selfCpuSeconds },
                selfCpuSeconds,
                3,
              ),
          ],
          ...(['host-batching', 'host-no-batching'] as const).map(
            (arm): [ArmName, () => Promise<PointResult>] => [
              arm,
              () =>
                runClosedLoop(
                  c,
                  (loop) => client.step(corpus, arm, loop),
                  args.opts,
                  { host: () => processCpuSeconds(hostPid), generator: selfCpuSeconds },
                  selfCpuSeconds,
                ),
            ],
          ),
        ];
        for (const [arm, measure] of arms) {
          const point = await measure();
          console.log(
            `run ${run} c=${c} ${arm}: ${point.throughput.toFixed(1)} req/s p50 ${point.p50.toFixed(1)} p99 ${point.p99.toFixed(1)} ms errors ${point.errors}${point.stable ? '' : ' (unstable)'}`,
          );
          const key = `${arm}@${c}`;
          results.set(key, [...(results.get(key) ?? []), point]);
        }
      }
    }
  } finally {
    client.close();
    await raw.close();
    await host.stop();
    repo.remove();
  }
  const points = [...results.entries()].map(([key, list]) => {
    const [arm, c] = key.split('@') as [ArmName, string];
    return { arm, concurrency: Number(c), ...median(list) };
  });
  const best = (arm: ArmName) =>
    points.filter((p) => p.arm === arm).reduce((a, b) => (b.throughput > a.throughput ? b : a));
  const rawBest = best('raw-ort');
  const hostBest = best('host-batching');
  const at32 = (arm: ArmName) =>
    points.find((p) => p.arm === arm && p.concurrency === 32)?.throughput ?? NaN;
  const result: HostBenchResult = {
    name: 'host',
    date: new Date().toISOString(),
    machine: machineLine(),
    mode: args.quick ? 'quick' : 'full',
    model: 'generated small BERT (6 layers, hidden 384), .bench-models/sentiment-en/1/model.onnx',
    threadBudget: budgetText,
    textMix: args.mix,
    lengthHistogram: hist,
    runs: args.runs,
    loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
    points,
    headline: {
      rawBest: { concurrency: rawBest.concurrency, throughput: rawBest.throughput },
      hostBest: { concurrency: hostBest.concurrency, throughput: hostBest.throughput },
      hostEfficiency: hostBest.throughput / rawBest.throughput,
      hostNoBatchingEfficiency: best('host-no-batching').throughput / rawBest.throughput,
      batchingGainC32: at32('host-batching') / at32('host-no-batching'),
    },
  };
  writeReport(join(ROOT, 'docs', 'benchmarks'), result);
  console.log(
    `host efficiency ${result.headline.hostEfficiency.toFixed(2)}; batching gain at c=32 ${result.headline.batchingGainC32.toFixed(2)}`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
