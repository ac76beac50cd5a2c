import type { TextMix } from './bench-corpus';
import type { PointResult } from './bench-measure';

export interface BenchPoint extends PointResult {
  arm: string;
  mix: TextMix;
  /** Closed loop: concurrent clients; raw ORT: batch size; open loop: arrivals per second. */
  concurrency: number;
  note: string;
  /** Throughput of each repetition (the point is the median one). */
  runs?: number[];
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
    loadAverage?: string;
    loadAverageBefore?: string;
  };
  model: string;
  corpus: Record<string, Record<string, number>>;
  reps?: number;
  /** Seconds of unrecorded c=1 load each closed arm had before the first point (older runs: none). */
  warmupSeconds?: number;
  /** The `--baseline` checkout and the `--baseline-env` its arms ran with. */
  baseline?: { dir: string; env: Record<string, string> };
  points: BenchPoint[];
  durationSeconds: number;
  headline?: Headline;
  /** Hand-written reading of the run (kept when re-rendering). */
  analysis?: string;
}

/** Which build the `*-baseline` arms ran, and the environment they ran with (when given). */
function baselineLine(b: BenchReport['baseline']): string[] {
  if (!b) return [];
  const env = Object.entries(b.env).map(([k, v]) => `${k}=${v}`);
  return [
    `Baseline arms: the build in \`${b.dir}\`${env.length > 0 ? `, with ${env.map((e) => `\`${e}\``).join(', ')}` : ''}.`,
  ];
}

export interface MixHeadline {
  mix: TextMix;
  /** Best raw-ORT configuration (label) and its items/s. */
  ceiling: { arm: string; throughput: number };
  /** Best closed-loop router (HTTP) throughput ÷ ceiling. Goal ≥ 0.85. */
  meshEfficiency: number;
  routerBest: number;
  /**
   * p50 at c=1 minus the fastest raw ORT batch-1 configuration's p50 (spinning or not, one or two
   * sessions), ms. Goal ≤ 1.5 HTTP, ≤ 1 gRPC.
   */
  addedP50Http: number;
  addedP50Grpc: number;
  /** The same over PredictStream (the `router-grpc-stream` arm), when it ran. */
  addedP50GrpcStream?: number;
  routerGrpcStreamP50?: number;
  rawP50: number;
  rawB1Arm: string;
  routerP50: number;
  routerGrpcP50: number;
  peerP50: number;
  /** Router ÷ naive peer at c=32 (goal ≥ 1.3 with p99 ≤ peer's). */
  vsPeer: number;
  vsPeerGrpc: number;
  router32: number;
  peer32: number;
  routerP99: number;
  peerP99: number;
  /** Best length-sorted ÷ arrival-order raw batching at the same batch size and split. */
  bucketing: { value: number; sorted: string; arrival: string };
  /** Triton-like host behind a bucketing router ÷ the mesh host, c=32. */
  tritonVsMesh: number;
  /** Host CPU-ms per item (router arm) vs raw ORT's at batch 1 and at the best batch. */
  hostCpuMsPerItem: {
    c1: number;
    c32: number;
    rawB1: number;
    rawBest: number;
    /** Raw b8 sorted only within 32 items: the batches a c=32 queue can form (NaN in older runs). */
    rawQueue32: number;
  };
  routerCpuMsPerItem: { c1: number; c32: number };
  /**
   * What 2 shared cores allow at best: cores ÷ (raw ORT's best CPU-ms per item + the router's
   * and the load generator's CPU-ms per item at the router's best point), and that ÷ ceiling.
   * The ceiling has every core to itself; the router arm shares them with two more processes.
   */
  cpuBound: { itemsPerSecond: number; vsCeiling: number };
  peerCpuMsPerItem: { c1: number; c32: number };
  /** Open loop at a fixed rate: p50/p99 per arm. */
  openLoop: { rate: number; arms: Record<string, { p50: number; p99: number; errors: number }> };
  /** The same measures for the mesh of another checkout (`router-baseline`), when that arm ran. */
  beforeAfter?: BeforeAfter[];
  /** `router-as-written-baseline` → `router-as-written`: the as-written config, before and after. */
  asWrittenBeforeAfter?: BeforeAfter[];
  /** `router` → `router-aa`, two routers of one build: the noise band of the pairs above. */
  aa?: BeforeAfter[];
  /** `router` (standalone Redis) → `router-redis-cluster` (a Redis Cluster), same build. */
  redisCluster?: BeforeAfter[];
  /** The `router-as-written` arms (a config as Triton users write it) against the peer, when they ran. */
  asWritten?: AsWritten;
}

/**
 * The router at default settings before a host whose config is written as for Triton (one
 * instance, `max_queue_delay_microseconds: 2000`, no mesh parameters), against the naive peer.
 * Goal (issue 31): c=1 p50 within 1.5 ms of the peer's.
 */
export interface AsWritten {
  p50Http: number;
  p50Grpc: number;
  /** p50 at c=1 minus the peer's, ms. */
  overPeerHttp: number;
  overPeerGrpc: number;
  /** The same over PredictStream (`router-as-written-grpc-stream`), when it ran. */
  p50GrpcStream?: number;
  overPeerGrpcStream?: number;
  /** c=32 throughput ÷ the peer's, and p99s (ms). */
  vsPeer32: number;
  vsPeer32Grpc: number;
  throughput32: number;
  p99: number;
  p99Grpc: number;
}

function asWrittenOf(points: readonly BenchPoint[], mix: TextMix): AsWritten | undefined {
  const a1 = find(points, 'router-as-written', mix, 1);
  const g1 = find(points, 'router-as-written-grpc', mix, 1);
  const a32 = find(points, 'router-as-written', mix, 32);
  const g32 = find(points, 'router-as-written-grpc', mix, 32);
  if (!a1 && !g1 && !a32 && !g32) return undefined;
  const n1 = find(points, 'naive-peer', mix, 1);
  const p32 = find(points, 'naive-peer', mix, 32);
  const s1 = find(points, 'router-as-written-grpc-stream', mix, 1);
  return {
    ...(s1 && {
      p50GrpcStream: s1.p50,
      overPeerGrpcStream: r2(s1.p50 - (n1?.p50 ?? NaN)),
    }),
    p50Http: a1?.p50 ?? NaN,
    p50Grpc: g1?.p50 ?? NaN,
    overPeerHttp: r2((a1?.p50 ?? NaN) - (n1?.p50 ?? NaN)),
    overPeerGrpc: r2((g1?.p50 ?? NaN) - (n1?.p50 ?? NaN)),
    vsPeer32: r2((a32?.throughput ?? NaN) / (p32?.throughput ?? NaN)),
    vsPeer32Grpc: r2((g32?.throughput ?? NaN) / (p32?.throughput ?? NaN)),
    throughput32: a32?.throughput ?? NaN,
    p99: a32?.p99 ?? NaN,
    p99Grpc: g32?.p99 ?? NaN,
  };
}

/** One measure of the mesh before a change (the `router-baseline` arm) and after it (`router`). */
export interface BeforeAfter {
  measure: string;
  before: number;
  after: number;
}

export interface Headline {
  mixes: MixHeadline[];
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

function bestOf(points: readonly BenchPoint[], pred: (p: BenchPoint) => boolean): BenchPoint {
  return [...points.filter(pred)].sort((a, b) => b.throughput - a.throughput)[0]!;
}

const cpuOf = (p: BenchPoint | undefined, name: string) => r2(p?.cpuPer1k[name] ?? NaN);

function mixHeadline(points: readonly BenchPoint[], mix: TextMix, cores: number): MixHeadline {
  const raws = points.filter((p) => p.mix === mix && p.arm.startsWith('raw '));
  const top = bestOf(raws, () => true);
  const routerBest = bestOf(points, (p) => p.mix === mix && p.arm === 'router');
  const rawB1 = raws.filter((p) => p.arm.startsWith('raw b1 ')).sort((a, b) => a.p50 - b.p50)[0];
  const r1 = find(points, 'router', mix, 1);
  const g1 = find(points, 'router-grpc', mix, 1);
  const s1 = find(points, 'router-grpc-stream', mix, 1);
  const n1 = find(points, 'naive-peer', mix, 1);
  const r32 = find(points, 'router', mix, 32);
  const g32 = find(points, 'router-grpc', mix, 32);
  const t32 = find(points, 'router-triton', mix, 32);
  const p32 = find(points, 'naive-peer', mix, 32);
  let bucketing = { value: NaN, sorted: '', arrival: '' };
  for (const s of raws.filter((p) => p.arm.includes(' sorted '))) {
    const a = raws.find((p) => p.arm === s.arm.replace(' sorted ', ' arrival '));
    if (!a) continue;
    const v = r2(s.throughput / a.throughput);
    if (!(v <= bucketing.value)) bucketing = { value: v, sorted: s.arm, arrival: a.arm };
  }
  const open = points.filter((p) => p.mix === mix && p.arm.startsWith('open '));
  const sharedMs = cpuOf(top, 'raw') + cpuOf(routerBest, 'router') + cpuOf(routerBest, 'generator');
  const boundPerSecond = r2((cores * 1000) / sharedMs);
  return {
    mix,
    ceiling: { arm: top?.arm ?? '', throughput: top?.throughput ?? NaN },
    meshEfficiency: r2((routerBest?.throughput ?? NaN) / (top?.throughput ?? NaN)),
    routerBest: routerBest?.throughput ?? NaN,
    addedP50Http: r2((r1?.p50 ?? NaN) - (rawB1?.p50 ?? NaN)),
    addedP50Grpc: r2((g1?.p50 ?? NaN) - (rawB1?.p50 ?? NaN)),
    ...(s1 && {
      addedP50GrpcStream: r2(s1.p50 - (rawB1?.p50 ?? NaN)),
      routerGrpcStreamP50: s1.p50,
    }),
    rawP50: rawB1?.p50 ?? NaN,
    rawB1Arm: rawB1?.arm ?? '',
    routerP50: r1?.p50 ?? NaN,
    routerGrpcP50: g1?.p50 ?? NaN,
    peerP50: n1?.p50 ?? NaN,
    vsPeer: r2((r32?.throughput ?? NaN) / (p32?.throughput ?? NaN)),
    vsPeerGrpc: r2((g32?.throughput ?? NaN) / (p32?.throughput ?? NaN)),
    router32: r32?.throughput ?? NaN,
    peer32: p32?.throughput ?? NaN,
    routerP99: r32?.p99 ?? NaN,
    peerP99: p32?.p99 ?? NaN,
    bucketing,
    tritonVsMesh: r2((t32?.throughput ?? NaN) / (r32?.throughput ?? NaN)),
    hostCpuMsPerItem: {
      c1: cpuOf(r1, 'host'),
      c32: cpuOf(r32, 'host'),
      rawB1: cpuOf(rawB1, 'raw'),
      rawBest: cpuOf(top, 'raw'),
      rawQueue32: cpuOf(
        raws.find((p) => p.arm.includes(' sorted in 32 ')),
        'raw',
      ),
    },
    routerCpuMsPerItem: { c1: cpuOf(r1, 'router'), c32: cpuOf(r32, 'router') },
    cpuBound: {
      itemsPerSecond: boundPerSecond,
      vsCeiling: r2(boundPerSecond / (top?.throughput ?? NaN)),
    },
    peerCpuMsPerItem: { c1: cpuOf(n1, 'peer'), c32: cpuOf(p32, 'peer') },
    openLoop: {
      rate: open[0]?.concurrency ?? NaN,
      arms: Object.fromEntries(
        open.map((p) => [p.arm.slice(5), { p50: p.p50, p99: p.p99, errors: p.errors }]),
      ),
    },
    beforeAfter: beforeAfter(points, mix, top?.throughput ?? NaN, rawB1?.p50 ?? NaN),
    asWrittenBeforeAfter: beforeAfter(points, mix, top?.throughput ?? NaN, rawB1?.p50 ?? NaN, [
      'router-as-written-baseline',
      'router-as-written',
    ]),
    aa: beforeAfter(points, mix, top?.throughput ?? NaN, rawB1?.p50 ?? NaN, [
      'router',
      'router-aa',
    ]),
    redisCluster: beforeAfter(points, mix, top?.throughput ?? NaN, rawB1?.p50 ?? NaN, [
      'router',
      'router-redis-cluster',
    ]),
    asWritten: asWrittenOf(points, mix),
  };
}

/**
 * One arm against another on the headline's measures, both from the same interleaved rounds:
 * by default `router-baseline` (the whole mesh, router and host, built in another checkout)
 * against `router`.
 */
function beforeAfter(
  points: readonly BenchPoint[],
  mix: TextMix,
  ceiling: number,
  rawB1P50: number,
  [beforeArm, afterArm]: readonly [string, string] = ['router-baseline', 'router'],
): BeforeAfter[] | undefined {
  const at = (arm: string, c: number) => find(points, arm, mix, c);
  const ran = (arm: string) => points.some((p) => p.mix === mix && p.arm === arm);
  if (!ran(beforeArm) || !ran(afterArm)) return undefined;
  const best = (arm: string) => bestOf(points, (p) => p.mix === mix && p.arm === arm)?.throughput;
  const peer32 = at('naive-peer', 32)?.throughput ?? NaN;
  const each = (measure: string, f: (arm: string) => number | undefined): BeforeAfter => ({
    measure,
    before: r2(f(beforeArm) ?? NaN),
    after: r2(f(afterArm) ?? NaN),
  });
  return [
    each('p50 at c=1, ms', (a) => at(a, 1)?.p50),
    each(
      'added p50 at c=1 over the fastest raw ORT b1, ms',
      (a) => (at(a, 1)?.p50 ?? NaN) - rawB1P50,
    ),
    each('requests/s at c=32', (a) => at(a, 32)?.throughput),
    each('÷ naive peer at c=32', (a) => (at(a, 32)?.throughput ?? NaN) / peer32),
    each('p99 at c=32, ms', (a) => at(a, 32)?.p99),
    each('best requests/s ÷ raw-ORT ceiling', (a) => (best(a) ?? NaN) / ceiling),
    each('router CPU-ms per request, c=1', (a) => at(a, 1)?.cpuPer1k.router),
    each('router CPU-ms per request, c=32', (a) => at(a, 32)?.cpuPer1k.router),
    each('host CPU-ms per item, c=1', (a) => at(a, 1)?.cpuPer1k.host),
    each('host CPU-ms per item, c=32', (a) => at(a, 32)?.cpuPer1k.host),
  ];
}

/** The ratios of BENCHMARKS.md and issue goals, per text mix. */
export function headline(points: readonly BenchPoint[], cores: number): Headline {
  const mixes = [...new Set(points.map((p) => p.mix))];
  return { mixes: mixes.map((m) => mixHeadline(points, m, cores)) };
}

type PairKey = 'beforeAfter' | 'asWrittenBeforeAfter' | 'aa' | 'redisCluster';

/** One pair's rows (a column pair per mix), when both of its arms ran. */
function pairTable(h: Headline, key: PairKey, title: string): string[] {
  const mixes = h.mixes.filter((x) => x[key]);
  if (mixes.length === 0) return [];
  return [
    '',
    `## ${title}`,
    '',
    `| measure | ${mixes.map((x) => `${x.mix}: before → after`).join(' | ')} |`,
    `|---|${mixes.map(() => '---|').join('')}`,
    ...mixes[0]![key]!.flatMap((row, i) => {
      const cells = mixes.map((x) => x[key]![i]!);
      // A measure neither arm has in this run (no raw ceiling ran, say) is left out.
      if (cells.every((c) => Number.isNaN(c.before) && Number.isNaN(c.after))) return [];
      return [`| ${row.measure} | ${cells.map((c) => `${c.before} → ${c.after}`).join(' | ')} |`];
    }),
  ];
}

function beforeAfterTable(h: Headline): string[] {
  return [
    ...pairTable(
      h,
      'beforeAfter',
      'Before → after (the `router-baseline` arm against `router`, same run)',
    ),
    ...pairTable(
      h,
      'asWrittenBeforeAfter',
      'Config as users write it, before → after (`router-as-written-baseline` against `router-as-written`, same run)',
    ),
    ...pairTable(
      h,
      'aa',
      'A/A: `router` against `router-aa` (two routers of this build on one host, same run): the noise band',
    ),
    ...pairTable(
      h,
      'redisCluster',
      'Redis mode: `router` (standalone Redis) against `router-redis-cluster` (the same build on a 3+3 Redis Cluster, same host, same run); compare with the A/A band',
    ),
  ];
}

export function renderMarkdown(report: BenchReport): string {
  const h = (report.headline ??= headline(report.points, report.machine.cores));
  const m = report.machine;
  // A measure whose arms were not in the run (its leading number is NaN in every mix) is left
  // out; a missing figure inside a row that stays reads "n/a".
  const row = (label: string, goal: string, f: (x: MixHeadline) => string) => {
    const cells = h.mixes.map(f);
    if (cells.every(notMeasured)) return undefined;
    return `| ${label} | ${cells.map((c) => c.replace(/[+]?NaN/g, 'n/a')).join(' | ')} | ${goal} |`;
  };
  const lines = [
    `# Router benchmark${report.quick ? ' (quick mode)' : ''}`,
    '',
    `Machine: ${m.cores} cores, ${m.cpu}, flags ${m.flags.join(' ') || 'n/a'}; Node ${m.node}; onnxruntime-node ${m.onnxruntime}; ${m.threads}.`,
    `Load average (1/5/15 min) before: ${m.loadAverageBefore ?? 'n/a'}, after: ${m.loadAverage ?? 'n/a'}.`,
    `Model: ${report.model}. Run ${report.date}, ${report.durationSeconds} s; every point is the median of ${report.reps ?? 1} interleaved runs${warmUpWords(report.warmupSeconds)}. The load generator shares the cores (its CPU is listed).`,

    ...baselineLine(report.baseline),
    '',
    '## Headline',
    '',
    `| measure | ${h.mixes.map((x) => x.mix).join(' | ')} | goal |`,
    `|---|${h.mixes.map(() => '---|').join('')}---|`,
    row(
      'raw-ORT ceiling (best configuration), items/s',
      '—',
      (x) => `${x.ceiling.throughput} (${x.ceiling.arm})`,
    ),
    row(
      'router ÷ ceiling (best concurrency)',
      '≥ 0.85',
      (x) => `${x.meshEfficiency} (${x.routerBest}/s)`,
    ),
    row(
      'CPU-budget bound for router ÷ ceiling (cores ÷ raw best + router + generator CPU-ms per item)',
      'report',
      (x) => `${x.cpuBound.vsCeiling} (${x.cpuBound.itemsPerSecond}/s)`,
    ),
    row(
      'router ÷ naive peer, c=32 (HTTP; gRPC)',
      '≥ 1.3',
      (x) => `${x.vsPeer}; ${x.vsPeerGrpc} (${x.router32} vs ${x.peer32}/s)`,
    ),
    row(
      'p99 at c=32, router vs peer, ms',
      'router ≤ peer',
      (x) => `${x.routerP99} vs ${x.peerP99}`,
    ),
    row(
      'added p50 at c=1 over the fastest raw ORT b1, HTTP',
      '≤ 1.5 ms',
      (x) =>
        `${x.addedP50Http} ms (${x.routerP50} vs ${x.rawP50}, ${x.rawB1Arm}; peer ${x.peerP50})`,
    ),
    row(
      'added p50 at c=1 over the fastest raw ORT b1, gRPC',
      '≤ 1 ms',
      (x) => `${x.addedP50Grpc} ms (${x.routerGrpcP50})`,
    ),
    ...(h.mixes.some((x) => x.routerGrpcStreamP50 !== undefined)
      ? [
          row(
            'added p50 at c=1 over the fastest raw ORT b1, gRPC PredictStream',
            '≤ 1 ms',
            (x) => `${x.addedP50GrpcStream ?? 'n/a'} ms (${x.routerGrpcStreamP50 ?? 'n/a'})`,
          ),
        ]
      : []),
    ...(h.mixes.some((x) => x.asWritten)
      ? [
          row(
            'config as Triton users write it (`router-as-written`): c=1 p50 over the naive peer, HTTP; gRPC',
            '≤ 1.5 ms',
            (x) =>
              x.asWritten
                ? `+${x.asWritten.overPeerHttp}; +${x.asWritten.overPeerGrpc} ms (${x.asWritten.p50Http}; ${x.asWritten.p50Grpc} vs ${x.peerP50})`
                : 'n/a',
          ),
          ...(h.mixes.some((x) => x.asWritten?.p50GrpcStream !== undefined)
            ? [
                row(
                  'config as written: c=1 p50 over the naive peer, gRPC PredictStream (`router-as-written-grpc-stream`)',
                  '≤ 1 ms',
                  (x) =>
                    x.asWritten?.p50GrpcStream !== undefined
                      ? `+${x.asWritten.overPeerGrpcStream} ms (${x.asWritten.p50GrpcStream} vs ${x.peerP50})`
                      : 'n/a',
                ),
              ]
            : []),
          row(
            'config as written ÷ naive peer, c=32 (HTTP; gRPC), p99 vs peer',
            '≥ 1.3, p99 ≤ peer',
            (x) =>
              x.asWritten
                ? `${x.asWritten.vsPeer32}; ${x.asWritten.vsPeer32Grpc} (${x.asWritten.throughput32} vs ${x.peer32}/s), p99 ${x.asWritten.p99}; ${x.asWritten.p99Grpc} vs ${x.peerP99} ms`
                : 'n/a',
          ),
        ]
      : []),
    row(
      'length-sorted ÷ arrival-order raw batching',
      '≥ 1.5 (mixed)',
      (x) => `${x.bucketing.value} (${x.bucketing.sorted})`,
    ),
    row(
      'Triton-like host + router buckets ÷ mesh host, c=32',
      'report',
      (x) => `${x.tritonVsMesh}`,
    ),
    row(
      'host CPU-ms per item, c=1 / c=32',
      '≤ 1.1 × raw at same batch',
      (x) => `${x.hostCpuMsPerItem.c1} / ${x.hostCpuMsPerItem.c32}`,
    ),
    row(
      'raw ORT CPU-ms per item, b1 / best',
      '—',
      (x) => `${x.hostCpuMsPerItem.rawB1} / ${x.hostCpuMsPerItem.rawBest}`,
    ),
    row('raw ORT CPU-ms per item, b8 sorted within 32 items (all a c=32 queue holds)', '—', (x) =>
      Number.isNaN(x.hostCpuMsPerItem.rawQueue32) ? '—' : `${x.hostCpuMsPerItem.rawQueue32}`,
    ),
    row(
      'router CPU-ms per item, c=1 / c=32',
      '—',
      (x) => `${x.routerCpuMsPerItem.c1} / ${x.routerCpuMsPerItem.c32}`,
    ),
    row(
      'naive peer CPU-ms per item, c=1 / c=32',
      '—',
      (x) => `${x.peerCpuMsPerItem.c1} / ${x.peerCpuMsPerItem.c32}`,
    ),
    row(
      'open loop: rate; p50 / p99 ms per arm',
      'router ≤ peer',
      (x) =>
        `${x.openLoop.rate}/s; ${Object.entries(x.openLoop.arms)
          .map(([a, v]) => `${a} ${v.p50} / ${v.p99}${v.errors ? ` (${v.errors} errors)` : ''}`)
          .join('; ')}`,
    ),
    ...beforeAfterTable(h),
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
    '| mix | c / batch / rate | arm | throughput/s | runs | p50 ms | p90 ms | p99 ms | errors | stable | CPU-s per 1k requests |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...report.points.map(
      (p) =>
        `| ${p.mix} | ${p.concurrency} | ${p.arm} | ${p.throughput} | ${(p.runs ?? []).join(' / ')} | ${p.p50} | ${p.p90} | ${p.p99} | ${p.errors} | ${p.stable ? 'yes' : 'no'} | ${Object.entries(
          p.cpuPer1k,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
    '',
    'Raw ORT (`raw b<batch> <order> <sessions>x<threads>t`) runs pre-tokenized batches back to back',
    'in worker threads, one session per worker (latency = batch time; `sorted` = each window of',
    '256 items sorted by length before cutting batches; `spin` = ORT spinning thread pools on).',
    'Router, router-grpc, router-triton and naive peer are closed loops of c concurrent clients',
    '(HTTP keep-alive, one gRPC channel); `open …` arms send at a fixed rate for the mix.',
    '',
  ];
  return lines.filter((l) => l !== undefined).join('\n');
}

/** A headline cell whose leading figure is missing: the arms it compares did not run. */
function notMeasured(cell: string): boolean {
  return /^[+]?NaN\b/.test(cell) || cell === '—' || cell === 'n/a';
}

/** How the processes were warmed before the first point; reports of older runs say nothing. */
function warmUpWords(seconds: number | undefined): string {
  return seconds ? `, after ${seconds} s of unrecorded c=1 load per arm` : '';
}
