import type { TextMix } from './bench-corpus';
import type { PointResult } from './bench-measure';

export interface BenchPoint extends PointResult {
  arm: string;
  mix: TextMix;
  concurrency: number;
  note: string;
}

export interface BenchReport {
  name: string;
  date: string;
  quick: boolean;
  machine: {
    cores: number;
    cpu: string;
    flags: string[];
    node: string;
    onnxruntime: string;
    threads: string;
  };
  model: string;
  corpus: Record<string, Record<string, number>>;
  points: BenchPoint[];
  durationSeconds: number;
  headline?: Headline;
  /** Hand-written reading of the run (kept when re-rendering). */
  analysis?: string;
}

/** CPU-seconds per 1,000 requests: the honest efficiency figure on a shared 2-core box. */
export interface CpuHeadline {
  /** raw ORT CPU/1k ÷ (router + host) CPU/1k at c=64; 1 = as efficient as the ceiling. */
  meshCpuEfficiency: number;
  /** router process share of (router + host) CPU at c=64. */
  routerCpuShare: number;
  /** router process CPU per request, ms, at c=64. */
  routerCpuMsPerRequest: number;
  /** naive peer CPU/1k ÷ (router + host) CPU/1k at c=32. */
  vsNaivePeerCpu: number;
}

export interface Headline {
  cpu: CpuHeadline;
  meshEfficiency: { value: number; goal: string; router: number; rawOrt: number; mix: TextMix };
  routerTaxMs: { value: number; goal: string; routerP50: number; rawOrtP50: number; mix: TextMix };
  vsNaivePeer: {
    value: number;
    goal: string;
    router: number;
    peer: number;
    routerP99: number;
    peerP99: number;
  };
}

const r2 = (x: number) => Math.round(x * 100) / 100;

function find(
  points: readonly BenchPoint[],
  arm: string,
  mix: TextMix,
  c: number,
): BenchPoint | undefined {
  return points.find((p) => p.arm === arm && p.mix === mix && p.concurrency === c);
}

function best(points: readonly BenchPoint[], arm: string, mix: TextMix): number {
  return Math.max(
    0,
    ...points.filter((p) => p.arm === arm && p.mix === mix).map((p) => p.throughput),
  );
}

/** The ratios of BENCHMARKS.md: mesh efficiency, router tax at c=1, router vs naive peer at c=32. */
export function headline(points: readonly BenchPoint[]): Headline {
  const mix: TextMix = points.some((p) => p.mix === 'mixed') ? 'mixed' : 'short';
  const router = best(points, 'router', mix);
  const rawOrt = best(points, 'raw-ort', mix);
  const r1 = find(points, 'router', mix, 1);
  const o1 = find(points, 'raw-ort', mix, 1);
  const r32 = find(points, 'router', mix, 32);
  const p32 = find(points, 'naive-peer', mix, 32);
  const cpu = (p: BenchPoint | undefined, ...names: string[]) =>
    names.reduce((sum, n) => sum + (p?.cpuPer1k[n] ?? NaN), 0);
  const r64 = find(points, 'router', mix, 64);
  const o64 = find(points, 'raw-ort', mix, 64);
  const mesh64 = cpu(r64, 'router', 'host');
  return {
    cpu: {
      meshCpuEfficiency: r2(cpu(o64, 'generator') / mesh64),
      routerCpuShare: r2(cpu(r64, 'router') / mesh64),
      routerCpuMsPerRequest: r2(cpu(r64, 'router')),
      vsNaivePeerCpu: r2(cpu(p32, 'peer') / cpu(r32, 'router', 'host')),
    },
    meshEfficiency: { value: r2(router / (rawOrt || 1)), goal: '≥ 0.85', router, rawOrt, mix },
    routerTaxMs: {
      value: r2((r1?.p50 ?? NaN) - (o1?.p50 ?? NaN)),
      goal: '≤ 1.5 ms',
      routerP50: r1?.p50 ?? NaN,
      rawOrtP50: o1?.p50 ?? NaN,
      mix,
    },
    vsNaivePeer: {
      value: r2((r32?.throughput ?? NaN) / (p32?.throughput || NaN)),
      goal: '≥ 1.3, p99 ≤ peer',
      router: r32?.throughput ?? NaN,
      peer: p32?.throughput ?? NaN,
      routerP99: r32?.p99 ?? NaN,
      peerP99: p32?.p99 ?? NaN,
    },
  };
}

export function renderMarkdown(report: BenchReport): string {
  const h = (report.headline ??= headline(report.points));
  const m = report.machine;
  const lines = [
    `# Router benchmark${report.quick ? ' (quick smoke run)' : ''}`,
    '',
    `Machine: ${m.cores} cores, ${m.cpu}, flags ${m.flags.join(' ') || 'n/a'}; Node ${m.node}; onnxruntime-node ${m.onnxruntime}; ${m.threads}.`,
    `Model: ${report.model}. Run ${report.date}, ${report.durationSeconds} s. The load generator shares the cores (its CPU is listed).`,
    '',
    '## Headline ratios',
    '',
    '| ratio | measured | goal | from |',
    '|---|---|---|---|',
    `| mesh efficiency (router ÷ raw ORT, best concurrency, ${h.meshEfficiency.mix}) | ${h.meshEfficiency.value} | ${h.meshEfficiency.goal} | ${h.meshEfficiency.router} vs ${h.meshEfficiency.rawOrt} items/s |`,
    `| router tax (router p50 − raw ORT p50, c=1, ${h.routerTaxMs.mix}) | ${h.routerTaxMs.value} ms | ${h.routerTaxMs.goal} | ${h.routerTaxMs.routerP50} vs ${h.routerTaxMs.rawOrtP50} ms |`,
    `| vs naive peer (throughput, c=32, mixed) | ${h.vsNaivePeer.value} | ${h.vsNaivePeer.goal} | ${h.vsNaivePeer.router} vs ${h.vsNaivePeer.peer} req/s; p99 ${h.vsNaivePeer.routerP99} vs ${h.vsNaivePeer.peerP99} ms |`,
    '',
    `CPU-seconds per 1,000 requests (${h.meshEfficiency.mix}): raw ORT ÷ (router + host) at c=64 = ${h.cpu.meshCpuEfficiency}; ` +
      `router process = ${h.cpu.routerCpuMsPerRequest} ms CPU per request (${Math.round(h.cpu.routerCpuShare * 100)} % of router + host); ` +
      `naive peer ÷ (router + host) at c=32 = ${h.cpu.vsNaivePeerCpu} (> 1: the mesh uses less CPU per request).`,
    ...(report.analysis ? ['', '## Analysis', '', report.analysis] : []),
    '',
    '## Corpus (token-length histogram)',
    '',
    ...Object.entries(report.corpus).map(
      ([mix, hist]) =>
        `- ${mix}: ${Object.entries(hist)
          .map(([b, n]) => `${b}: ${n}`)
          .join(', ')}`,
    ),
    '',
    '## All points',
    '',
    '| mix | c | arm | throughput/s | p50 ms | p90 ms | p99 ms | errors | stable | CPU-s per 1k requests |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...report.points.map(
      (p) =>
        `| ${p.mix} | ${p.concurrency} | ${p.arm} | ${p.throughput} | ${p.p50} | ${p.p90} | ${p.p99} | ${p.errors} | ${p.stable ? 'yes' : 'no'} | ${Object.entries(
          p.cpuPer1k,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
    '',
    'Raw ORT runs batches of min(c, 64) pre-tokenized items back to back (latency = batch time);',
    'router and naive peer are closed loops of c concurrent HTTP clients (keep-alive).',
    '',
  ];
  return lines.join('\n');
}
