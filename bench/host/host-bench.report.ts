import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { PointResult } from './host-bench.measure';

export type ArmName = 'raw-ort' | 'host-batching' | 'host-no-batching';

export interface HostBenchResult {
  name: 'host';
  date: string;
  machine: string;
  mode: 'quick' | 'full';
  model: string;
  threadBudget: string;
  textMix: string;
  lengthHistogram: Record<string, number>;
  runs: number;
  /** 1-minute load average before and after the run: other work on the box skews the figures. */
  loadAverage: { start: number; end: number };
  points: Array<{ arm: ArmName; concurrency: number } & PointResult>;
  headline: {
    rawBest: { concurrency: number; throughput: number };
    hostBest: { concurrency: number; throughput: number };
    hostEfficiency: number;
    /** The same ratio for the host with dynamic batching off. */
    hostNoBatchingEfficiency?: number;
    batchingGainC32: number;
  };
}

export function machineLine(): string {
  const c = cpus();
  let flags: string[] = [];
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const line = /^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? '';
    const wanted = ['sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512_vnni', 'amx_tile'];
    flags = line.split(' ').filter((f) => wanted.includes(f));
  } catch {
    flags = ['unknown'];
  }
  const ortVersion = (
    JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return `${c.length} cores (${c[0]?.model ?? 'unknown CPU'}), flags ${flags.join(' ')}, Node ${process.version}, onnxruntime-node ${ortVersion}`;
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

export function writeReport(outDir: string, r: HostBenchResult): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'host.json'), `${JSON.stringify(r, null, 2)}\n`);
  const rows = r.points
    .sort((a, b) => a.concurrency - b.concurrency || a.arm.localeCompare(b.arm))
    .map(
      (p) =>
        `| ${p.arm} | ${p.concurrency} | ${f(p.throughput)} | ${f(p.p50)} | ${f(p.p90)} | ${f(p.p99)} | ${p.errors} | ${p.stable ? 'yes' : `unstable (${p.windows} windows)`} | ${Object.entries(
          p.cpuPer1k,
        )
          .map(([k, v]) => `${k} ${f(v)}`)
          .join(', ')} | ${f(p.generatorCpuShare * 100, 0)} % |`,
    );
  const h = r.headline;
  const md = [
    '# Model host benchmark',
    '',
    `Machine: ${r.machine}`,
    '',
    `Run: ${r.date}, mode ${r.mode}, median of ${r.runs} interleaved run(s). Model: ${r.model}. Thread budget: ${r.threadBudget}. Text mix: ${r.textMix} (pre-tokenized, seeded).`,
    '',
    `Load average (1 min) at start / end: ${f(r.loadAverage.start, 2)} / ${f(r.loadAverage.end, 2)} on ${cpus().length} cores — figures from a busy machine compare only within the run.`,
    '',
    `Token lengths: ${Object.entries(r.lengthHistogram)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}`,
    '',
    '## Headline',
    '',
    `- host efficiency (host with batching ÷ raw ORT, best concurrency of each): **${f(h.hostEfficiency, 2)}** (goal ≥ 0.9) — host ${f(h.hostBest.throughput)} req/s at c=${h.hostBest.concurrency}, raw ORT ${f(h.rawBest.throughput)} req/s at batch ${h.rawBest.concurrency}`,
    ...(h.hostNoBatchingEfficiency === undefined
      ? []
      : [
          `- host with batching off ÷ raw ORT (best concurrency of each): **${f(h.hostNoBatchingEfficiency, 2)}**`,
        ]),
    `- batching gain (host batching on ÷ off, c=32): **${f(h.batchingGainC32, 2)}** — on 2 CPU cores a padded batch costs about as much per token as single rows, so batching mostly adds queueing; it pays where per-call overhead dominates (GPUs, tiny models).`,
    '',
    '## Points',
    '',
    'Raw ORT at concurrency C runs batches of up to C rows back to back in-process (latency = batch time); its "load generator CPU" is the bench process running ORT itself. Host arms: C closed loops of one-row requests over one gRPC channel from the bench process. "unstable" = 3 windows never agreed within 10 % (a shared, busy machine).',
    '',
    '| arm | concurrency | req/s | p50 ms | p90 ms | p99 ms | errors | stable | CPU-s per 1k requests | load generator CPU |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(join(outDir, 'host.md'), md);
}
