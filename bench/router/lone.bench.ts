/**
 * `npm run bench:lone [-- --seconds 180 --block-ms 1000 --settle-ms 100 --warmup-requests 2000
 * --name NAME]`: a lone request (c=1) on the config as Triton users write it, against the naive
 * peer, with the arms taking turns in short blocks instead of whole rounds.
 *
 * Why: the c=1 goals of the as-written arm are margins of 1–1.5 ms, and on a shared VM the
 * interleaved rounds of `npm run bench` (each arm measured for tens of seconds in turn) put an
 * A/A pair up to 1.2 ms apart at c=1, because the machine's slow spells last about as long as a
 * round. Here every arm gets one block of `--block-ms` per cycle, so each cycle's blocks see the
 * same spell, in an order shuffled anew each cycle (seeded), so no arm always follows the same
 * one. Each arm's difference to the peer is taken block by block within a cycle, and its
 * median over the cycles is reported with a 95 % bootstrap interval (cycles resampled). A
 * second host and router of the same build (the `-aa` arms) give the band that noise alone
 * makes. The first `--settle-ms` of every block are not counted, so a process whose turn just
 * ended (ORT's pool threads spin for a spell after a run) does not slow the next arm's first
 * requests.
 *
 * A process keeps its own small lasting offset for as long as it lives (two meshes of one build,
 * started one after the other, were 0.4 ms apart for a whole run), so the run is split over
 * `--restarts` sets of fresh processes (default 3), each started in a shuffled order, and the
 * intervals resample sets and then cycles within them. Each block also reads the scheduler's
 * run time of every thread on the arm's path: CPU-ms per request per process, which a change to
 * the code moves far more steadily than latency; and how long those threads waited for a CPU,
 * which shows where two cores are too few (a spinning pool thread, say).
 *
 * `--baseline DIR` adds a third router and host built in another checkout (the mesh before a
 * change), and reports this build minus that one, block by block, per transport.
 * `--baseline-env NAME=value` (repeatable) starts that host and router with a setting changed,
 * so `--baseline . --baseline-env NAME=value` weighs one setting on this build;
 * `--baseline-node-arg=--flag` (repeatable) does the same for a flag to node itself (V8's, which
 * NODE_OPTIONS refuses).
 *
 * Writes docs/benchmarks/<name>.{json,md}; `--render FILE.json` writes the Markdown of a saved
 * report again, with its `analysis`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { UsageError, keyValueOption, parseCliArgs } from '../../scripts/cli-args';
import { machineLine } from '../host/host-bench.report';
import { buildCorpus, seededRandom } from './bench-corpus';
import { latencyStats, medianOf, round, splitByEventLoop, threadSched } from './bench-measure';
import {
  BENCH_MODEL,
  ROOT,
  startBenchMesh,
  startNaivePeer,
  type BenchProcess,
} from './bench-processes';
import { asUsersWriteIt, ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';
import { postJson } from './http-post';
import { RouterGrpcClient } from './router-grpc.client';

const { name: MODEL, task: TASK, key: KEY } = BENCH_MODEL;

/** Issue 31's c=1 goals for the config as written: p50 over the peer's, in ms. */
const GOALS: Record<string, number> = { 'as-written': 1.5, 'as-written-grpc-stream': 1.0 };

interface Arm {
  name: string;
  note: string;
  shot: (i: number) => Promise<void>;
  /** The processes on the arm's path by role (`peer`, or `router` and `host`). */
  pids: Record<string, number>;
}

/**
 * Ms per counted request of a block, per process on the arm's path (on a CPU, or waiting for
 * one): `<role>` is its event loop (main thread), `<role> threads` every other thread (ORT's
 * session threads on the host and the peer; the GC's and libuv's on a router), from the
 * scheduler's per-thread times.
 */
type MsPerRequest = Record<string, number>;

interface ArmResult {
  note: string;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  /** CPU-ms per request, median over the blocks (absent in reports written before it was). */
  cpuMs?: MsPerRequest;
  /**
   * Ms per request the same threads spent runnable but waiting for a CPU, keyed as `cpuMs`,
   * median over the blocks (absent in reports written before it was).
   */
  queuedMs?: MsPerRequest;
}

const BOOTSTRAP_SEED = 20261204;
/** Seeds the order of the arms in each cycle, so a run can be repeated block for block. */
const ORDER_SEED = 4177;
/**
 * Requests each arm serves in every set of processes before any block counts (`--warmup-requests`).
 * V8 compiles a request path as it runs it: a router and host of the config as written spent
 * 1.99 and 1.06 CPU-ms per lone request over their first 5 s and about 1.3 and 0.65 from 25 s on
 * (about 4000 requests; WARM_UP_SECONDS in router.bench.ts). A mesh's HTTP and PredictStream arms
 * share its processes, so 2000 each bring it there. With 4 s per arm, as before, every block of a
 * 60-s set measured a mesh still compiling, which the peer's shorter path is not for as long.
 */
const WARM_UP_REQUESTS = 2000;

/**
 * The arms in a new order for each cycle (Fisher–Yates on a seeded generator). In a fixed order
 * the arm after the peer always ran right after the peer's process, and the first and second
 * mesh of the A/A pair always in the same places, so a cost of position would read as a
 * difference between arms.
 */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** An arm's p50 minus another's, block by block within a cycle: median and 95 % interval. */
interface PairedDifference {
  median: number;
  low: number;
  high: number;
  cycles: number;
  /** Sets of processes the cycles ran in (absent: one). */
  sets?: number;
}

interface LoneReport {
  at: string;
  machine: string;
  loadBefore: number[];
  loadAfter: number[];
  command: string;
  /** `order` is absent in reports written before the arms' order was shuffled (fixed then). */
  settings: {
    seconds: number;
    blockMs: number;
    settleMs: number;
    order?: 'shuffled';
    /** Sets of fresh processes the run was split over (absent: one). */
    restarts?: number;
    /**
     * Requests per arm and set before any block counted, all arms at once; absent in reports
     * written before it was, when each arm was warmed for 4 s in turn.
     */
    warmupRequests?: number;
  };
  arms: Record<string, ArmResult>;
  /** Each mesh arm against the peer. */
  overPeer: Record<string, PairedDifference>;
  /** The second mesh against the first, per transport: the noise band. */
  aa: Record<string, PairedDifference>;
  /**
   * With `--baseline`: this build minus the baseline checkout's, per transport; `env` is the
   * `--baseline-env` its host and router ran with (absent: none, or a report from before).
   */
  baseline?: {
    dir: string;
    env?: Record<string, string>;
    /** The `--baseline-node-arg`s its host and router were started with. */
    nodeArgs?: string[];
    byTransport: Record<string, PairedDifference>;
  };
  /**
   * CPU-ms per request, block by block like the latencies: the A/A pair's second mesh minus its
   * first, and with `--baseline` this build minus that one, per transport and per process.
   */
  cpu?: {
    aa: Record<string, Record<string, PairedDifference>>;
    baseline?: Record<string, Record<string, PairedDifference>>;
  };
  analysis?: string;
}

function readArgs(argv: string[]) {
  return parseCliArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      baseline: { type: 'string' },
      'baseline-env': { type: 'string', multiple: true },
      'baseline-node-arg': { type: 'string', multiple: true },
      'block-ms': { type: 'string' },
      'settle-ms': { type: 'string' },
      models: { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
      restarts: { type: 'string' },
      'warmup-requests': { type: 'string' },
    },
  }).values;
}

/**
 * Median of `a[j] - b[j]` over the cycles j, with a percentile bootstrap interval (a seeded
 * generator so a report can be computed again). The resampling is in two stages, segments and
 * then cycles within each drawn segment: each segment's processes hold their own lasting
 * differences (a mesh started in one place can run a few tenths of a ms slower than its twin
 * for as long as it lives), and resampling cycles alone would take those for signal.
 */
function pairedBySegment(
  a: readonly number[],
  b: readonly number[],
  segmentOf: readonly number[],
  resamples = 2000,
): PairedDifference {
  const bySegment = new Map<number, number[]>();
  a.forEach((x, j) => {
    const d = x - (b[j] ?? NaN);
    if (!Number.isFinite(d)) return;
    const seg = segmentOf[j] ?? 0;
    const ds = bySegment.get(seg) ?? [];
    ds.push(d);
    bySegment.set(seg, ds);
  });
  const segments = [...bySegment.values()];
  const d = segments.flat();
  const random = seededRandom(BOOTSTRAP_SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const medians: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample: number[] = [];
    for (let k = 0; k < segments.length; k++) {
      const seg = pick(segments);
      for (let c = 0; c < seg.length; c++) sample.push(pick(seg));
    }
    medians.push(medianOf(sample));
  }
  medians.sort((x, y) => x - y);
  return {
    median: round(medianOf(d), 3),
    low: round(medians[Math.floor(resamples * 0.025)] ?? NaN, 3),
    high: round(medians[Math.ceil(resamples * 0.975) - 1] ?? NaN, 3),
    cycles: d.length,
    ...(segments.length > 1 ? { sets: segments.length } : {}),
  };
}

/** Each process key's median over the blocks, to 3 decimals. */
function medianPerKey(blocks: readonly MsPerRequest[]): MsPerRequest {
  const keys = Object.keys(blocks[0] ?? {});
  return Object.fromEntries(
    keys.map((k) => [k, round(medianOf(blocks.map((b) => b[k] ?? NaN)), 3)]),
  );
}

/** Met when the whole interval is at or under the goal, missed when all of it is over. */
function verdict(d: PairedDifference, goal: number): string {
  if (d.high <= goal) return 'met';
  if (d.low > goal) return '**missed**';
  return 'inside the interval';
}

function render(r: LoneReport): string {
  const armRows = Object.entries(r.arms).map(
    ([name, a]) => `| ${name} | ${a.p50} | ${a.p90} | ${a.p99} | ${a.requests} | ${a.note} |`,
  );
  const interval = (d: PairedDifference) =>
    `${d.median >= 0 ? '+' : ''}${d.median} (${d.low} … ${d.high}), ${d.cycles} cycles${d.sets ? ` in ${d.sets} sets` : ''}`;
  const goalRows = Object.entries(r.overPeer).map(([name, d]) => {
    const goal = GOALS[name];
    return `| ${name} | ${interval(d)} | ${goal === undefined ? '—' : `≤ +${goal}: ${verdict(d, goal)}`} |`;
  });
  const aaRows = Object.entries(r.aa).map(([name, d]) => `| ${name} | ${interval(d)} |`);
  const cpuKeys = [
    ...new Set(Object.values(r.arms).flatMap((a) => Object.keys(a.cpuMs ?? {}))),
  ].sort();
  const cpuRows = r.cpu
    ? [
        '',
        '## CPU per request (ms, median over the blocks)',
        '',
        'From the scheduler’s run time of each thread over the counted part of each block. A',
        'process’s event loop is its name alone; `threads` are its other threads together (ORT’s',
        'session threads on the host and the peer).',
        '',
        ...perArmTable(r, cpuKeys, (a) => a.cpuMs),
        ...queuedRows(r, cpuKeys),
        '',
        '## CPU per request, paired by cycle (ms, median and 95 % interval)',
        '',
        '| pair | transport | process | difference |',
        '|---|---|---|---|',
        ...Object.entries({ 'A/A, second − first': r.cpu.aa, 'this − baseline': r.cpu.baseline })
          .filter((e): e is [string, Record<string, Record<string, PairedDifference>>] =>
            Boolean(e[1]),
          )
          .flatMap(([pair, byTransport]) =>
            Object.entries(byTransport).flatMap(([t, byKey]) =>
              Object.entries(byKey).map(([k, d]) => `| ${pair} | ${t} | ${k} | ${interval(d)} |`),
            ),
          ),
      ]
    : [];
  const baselineRows = r.baseline
    ? [
        '',
        `## Before → after: this build minus the build in \`${r.baseline.dir}\`${baselineSettingsText(r.baseline.env, r.baseline.nodeArgs)} (negative: faster now)`,
        '',
        '| transport | this − baseline |',
        '|---|---|',
        ...Object.entries(r.baseline.byTransport).map(([t, d]) => `| ${t} | ${interval(d)} |`),
      ]
    : [];
  return [
    '# A lone request, arms taking turns in short blocks',
    '',
    `${r.machine}; load average (1/5/15 min) before: ${r.loadBefore.join(' ')}, after: ${r.loadAfter.join(' ')}.`,
    `Run ${r.at}: \`${r.command}\`; ${r.settings.seconds} s of blocks of ${r.settings.blockMs} ms, ${r.settings.order === 'shuffled' ? 'in an order shuffled each cycle' : 'in the same order each cycle'}, the first ${r.settings.settleMs} ms of each not counted${(r.settings.restarts ?? 1) > 1 ? `; split over ${r.settings.restarts} sets of fresh processes, each started in a shuffled order, the intervals resampling sets and then cycles` : ''}; ${r.settings.warmupRequests !== undefined ? `before the first block of a set, each arm served ${r.settings.warmupRequests} requests at c=1, all arms at once` : 'each arm warmed for 4 s in turn before the first block of a set'}.`,
    `Model: ${MODEL} v${BENCH_MODEL.version} (small) behind the config as Triton users write it (one instance, max_queue_delay 2 ms, no mesh parameters); short texts; c=1, the load generator on the same cores.`,
    '',
    '## Over the naive peer: p50 difference, block by block (ms, median and 95 % interval)',
    '',
    '| arm | over the peer | goal |',
    '|---|---|---|',
    ...goalRows,
    '',
    '## A/A: the second mesh of this build against the first (the noise band)',
    '',
    '| transport | second − first |',
    '|---|---|',
    ...aaRows,
    ...baselineRows,
    ...cpuRows,
    '',
    '## Every request, pooled',
    '',
    '| arm | p50 ms | p90 ms | p99 ms | requests | path |',
    '|---|---|---|---|---|---|',
    ...armRows,
    ...(r.analysis ? ['', '## Analysis', '', r.analysis] : []),
    '',
  ].join('\n');
}

/**
 * The run-queue table: how long the same threads waited for a CPU per request. Latency hides
 * where it is lost; this shows which process's threads were kept from a core, and how long.
 */
function queuedRows(r: LoneReport, keys: readonly string[]): string[] {
  if (!Object.values(r.arms).some((a) => a.queuedMs)) return [];
  return [
    '',
    '## Waiting for a CPU per request (ms, median over the blocks)',
    '',
    'From the scheduler’s run-queue time of the same threads (`schedstat`’s second field): time',
    'each was ready to run but had no core, over the counted part of each block.',
    '',
    ...perArmTable(r, keys, (a) => a.queuedMs),
  ];
}

/** One row per arm, one column per process key, of one per-request measure. */
function perArmTable(
  r: LoneReport,
  keys: readonly string[],
  measure: (a: ArmResult) => MsPerRequest | undefined,
): string[] {
  return [
    `| arm | ${keys.join(' | ')} |`,
    `|---|${keys.map(() => '---').join('|')}|`,
    ...Object.entries(r.arms).map(
      ([name, a]) => `| ${name} | ${keys.map((k) => measure(a)?.[k] ?? '—').join(' | ')} |`,
    ),
  ];
}

/** Which mesh an arm goes through: its name suffix, its path's words, and the build it runs. */
interface MeshSpec {
  suffix: string;
  which: string;
  /** The checkout whose build runs (another commit, for a before/after); this one if unset. */
  root?: string;
  /** Environment of its host and router over their defaults. */
  env?: Record<string, string>;
  /** Flags to node itself for its host and router. */
  nodeArgs?: string[];
}

/**
 * ` run with A=1, B=2, node --flag` for a baseline started with `--baseline-env` or
 * `--baseline-node-arg`, else nothing.
 */
function baselineSettingsText(
  env: Record<string, string> | undefined,
  nodeArgs: readonly string[] = [],
): string {
  const settings = [
    ...Object.entries(env ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(nodeArgs.length > 0 ? [`node ${nodeArgs.join(' ')}`] : []),
  ];
  return settings.length === 0 ? '' : ` run with ${settings.join(', ')}`;
}

/** A host and a router on the as-written config; their two c=1 arms. */
async function startMesh(
  repository: string,
  spec: MeshSpec,
  procs: BenchProcess[],
  clients: RouterGrpcClient[],
  corpus: readonly string[],
): Promise<Arm[]> {
  const { suffix, which, root, env, nodeArgs } = spec;
  const { router, host } = await startBenchMesh(repository, procs, {
    keyPrefix: `bench-lone-${process.pid}${suffix}`,
    root,
    env,
    hostNodeArgs: nodeArgs,
    routerNodeArgs: nodeArgs,
  });
  const grpc = new RouterGrpcClient(router.urls.grpc!, KEY);
  clients.push(grpc);
  const text = (i: number) => corpus[i % corpus.length]!;
  const pids = { router: router.pid, host: host.pid };
  return [
    {
      name: `as-written${suffix}`,
      note: `HTTP → ${which}`,
      pids,
      shot: (i) =>
        postJson(`${router.url}/v1/predict`, JSON.stringify({ task: TASK, text: text(i) }), KEY),
    },
    {
      name: `as-written${suffix}-grpc-stream`,
      note: `one PredictStream call → ${which}`,
      pids,
      shot: (i) => grpc.predictOnStream(TASK, text(i)),
    },
  ];
}

/**
 * Seconds of each process's event loop and of its other threads, by role: on a CPU (`cpu`) and
 * runnable but waiting for one (`queued`).
 */
function schedOf(pids: Record<string, number>): {
  cpu: Record<string, number>;
  queued: Record<string, number>;
} {
  const cpu: Record<string, number> = {};
  const queued: Record<string, number> = {};
  const put = (out: Record<string, number>, role: string, byThread: Record<string, number>) => {
    const { main, others } = splitByEventLoop(byThread);
    out[role] = main;
    out[`${role} threads`] = others;
  };
  for (const [role, pid] of Object.entries(pids)) {
    const sched = threadSched(pid);
    put(cpu, role, sched.cpu);
    put(queued, role, sched.queued);
  }
  return { cpu, queued };
}

/** Per key, ms per request between two readings of `schedOf` over `requests` requests. */
function perRequest(
  after: Record<string, number>,
  before: Record<string, number>,
  requests: number,
): MsPerRequest {
  const out: MsPerRequest = {};
  for (const [k, v] of Object.entries(after)) out[k] = ((v - (before[k] ?? v)) * 1000) / requests;
  return out;
}

/**
 * One block of an arm: the latencies after the settle time, the CPU per request over them, and
 * the request counter after. The CPU is read between requests, never inside a timed one.
 */
async function block(
  arm: Arm,
  from: number,
  blockMs: number,
  settleMs: number,
): Promise<{ latencies: number[]; cpu: MsPerRequest; queued: MsPerRequest; next: number }> {
  const start = performance.now();
  const latencies: number[] = [];
  let before: ReturnType<typeof schedOf> | undefined;
  let i = from;
  while (performance.now() - start < blockMs) {
    if (!before && performance.now() - start >= settleMs) before = schedOf(arm.pids);
    const t = performance.now();
    await arm.shot(i++);
    if (before) latencies.push(performance.now() - t);
  }
  // A block that counted nothing (shorter than its settling) reads no CPU either.
  if (!before || latencies.length === 0) return { latencies, cpu: {}, queued: {}, next: i };
  const after = schedOf(arm.pids);
  return {
    latencies,
    cpu: perRequest(after.cpu, before.cpu, latencies.length),
    queued: perRequest(after.queued, before.queued, latencies.length),
    next: i,
  };
}

/** Per process key, `a[j][key] - b[j][key]` over the cycles j (see pairedBySegment). */
function pairedCpuBySegment(
  a: readonly MsPerRequest[],
  b: readonly MsPerRequest[],
  segmentOf: readonly number[],
) {
  const keys = Object.keys(a[0] ?? {});
  return Object.fromEntries(
    keys.map((k) => [
      k,
      pairedBySegment(
        a.map((x) => x[k] ?? NaN),
        b.map((x) => x[k] ?? NaN),
        segmentOf,
      ),
    ]),
  );
}

/**
 * The peer and every mesh, started in a shuffled order (so no build is always the first up),
 * as arms in a fixed order: the peer, this build, its A/A twin, the baseline.
 */
async function startArms(
  repository: string,
  o: {
    models: string;
    corpus: readonly string[];
    baselineDir?: string;
    baselineEnv: Record<string, string>;
    baselineNodeArgs: string[];
  },
  procs: BenchProcess[],
  clients: RouterGrpcClient[],
  random: () => number,
): Promise<Arm[]> {
  const { models, corpus, baselineDir, baselineEnv, baselineNodeArgs } = o;
  const rest = [procs, clients, corpus] as const;
  const starts: Array<() => Promise<Arm[]>> = [
    async () => {
      const peer = await startNaivePeer(models, procs);
      return [
        {
          name: 'naive-peer',
          note: 'HTTP → Fastify + ORT, session.run per request',
          pids: { peer: peer.pid },
          shot: (i) =>
            postJson(
              `${peer.url}/predict`,
              JSON.stringify({ task: TASK, text: corpus[i % corpus.length] }),
            ),
        },
      ];
    },
    () => startMesh(repository, { suffix: '', which: 'router → host' }, ...rest),
    () =>
      startMesh(
        repository,
        { suffix: '-aa', which: 'a second router and host of this build' },
        ...rest,
      ),
    ...(baselineDir
      ? [
          () =>
            startMesh(
              repository,
              {
                suffix: '-baseline',
                which: `router → host built in ${baselineDir}${baselineSettingsText(baselineEnv, baselineNodeArgs)}`,
                root: baselineDir,
                env: baselineEnv,
                nodeArgs: baselineNodeArgs,
              },
              ...rest,
            ),
        ]
      : []),
  ];
  const started: Arm[][] = [];
  for (const k of shuffled([...starts.keys()], random)) started[k] = await starts[k]!();
  return started.flat();
}

async function main(): Promise<void> {
  const flags = readArgs(process.argv.slice(2));
  if (flags.render !== undefined) {
    const report = JSON.parse(readFileSync(flags.render, 'utf8')) as LoneReport;
    writeFileSync(flags.render.replace(/\.json$/, '.md'), render(report));
    return;
  }
  const seconds = Number(flags.seconds ?? 180);
  const blockMs = Number(flags['block-ms'] ?? 1000);
  const settleMs = Number(flags['settle-ms'] ?? 100);
  const restarts = Number(flags.restarts ?? 3);
  const warmupRequests = Number(flags['warmup-requests'] ?? WARM_UP_REQUESTS);
  if (!(seconds > 0 && blockMs > settleMs && settleMs >= 0)) {
    throw new Error('--seconds must be > 0 and --block-ms > --settle-ms >= 0');
  }
  if (!(Number.isInteger(restarts) && restarts >= 1)) {
    throw new Error('--restarts must be a whole number >= 1');
  }
  if (!(Number.isInteger(warmupRequests) && warmupRequests >= 0)) {
    throw new Error('--warmup-requests must be a whole number >= 0');
  }
  const models = flags.models ?? join(ROOT, '.bench-models');
  const baselineDir = flags.baseline === undefined ? undefined : resolve(flags.baseline);
  const baselineEnv = keyValueOption(flags['baseline-env'], 'baseline-env');
  const baselineNodeArgs = flags['baseline-node-arg'] ?? [];
  if (baselineNodeArgs.some((a) => !a.startsWith('--'))) {
    throw new UsageError(
      `--baseline-node-arg wants a flag to node, as --baseline-node-arg=--name=value (got '${baselineNodeArgs.join(' ')}')`,
    );
  }
  if (
    (Object.keys(baselineEnv).length > 0 || baselineNodeArgs.length > 0) &&
    baselineDir === undefined
  ) {
    throw new UsageError(
      '--baseline-env and --baseline-node-arg need --baseline (use --baseline . for this build)',
    );
  }
  const name = flags.name ?? 'lone';
  const out = flags.out ?? join(ROOT, 'docs', 'benchmarks');
  ensureBuiltAndGenerated(models, MODEL);
  const corpus = buildCorpus('short', 2000);
  const repo = repositoryVariant(models, MODEL, {}, { rewrite: asUsersWriteIt });
  const loadBefore = loadavg().map((l) => round(l, 2));
  try {
    const perBlock = new Map<string, number[]>();
    const pooled = new Map<string, number[]>();
    const cpuBlocks = new Map<string, MsPerRequest[]>();
    const queuedBlocks = new Map<string, MsPerRequest[]>();
    /** Which segment (set of processes) each cycle ran in. */
    const segmentOf: number[] = [];
    const orderRandom = seededRandom(ORDER_SEED);
    let arms: Arm[] = [];
    let i = 0;
    for (let segment = 0; segment < restarts; segment++) {
      const procs: BenchProcess[] = [];
      const clients: RouterGrpcClient[] = [];
      try {
        arms = await startArms(
          repo.root,
          { models, corpus, baselineDir, baselineEnv, baselineNodeArgs },
          procs,
          clients,
          orderRandom,
        );
        for (const arm of arms) {
          if (!perBlock.has(arm.name)) {
            perBlock.set(arm.name, []);
            pooled.set(arm.name, []);
            cpuBlocks.set(arm.name, []);
            queuedBlocks.set(arm.name, []);
          }
        }
        // Warm-up (see WARM_UP_REQUESTS): every arm at c=1, all at once, so the set's processes
        // warm in the time of the slowest rather than of all one after another.
        await Promise.all(
          arms.map(async (arm, k) => {
            for (let n = 0; n < warmupRequests; n++) await arm.shot(i + k * warmupRequests + n);
          }),
        );
        i += arms.length * warmupRequests;
        const stop = performance.now() + (seconds * 1000) / restarts;
        while (performance.now() < stop) {
          for (const arm of shuffled(arms, orderRandom)) {
            const b = await block(arm, i, blockMs, settleMs);
            i = b.next;
            perBlock.get(arm.name)!.push(medianOf(b.latencies));
            pooled.get(arm.name)!.push(...b.latencies);
            cpuBlocks.get(arm.name)!.push(b.cpu);
            queuedBlocks.get(arm.name)!.push(b.queued);
          }
          segmentOf.push(segment);
        }
      } finally {
        for (const c of clients) c.close();
        for (const p of procs.reverse()) await p.stop('SIGTERM');
      }
    }
    const pairedDifference = (a: readonly number[], b: readonly number[]) =>
      pairedBySegment(a, b, segmentOf);
    const pairedCpu = (a: readonly MsPerRequest[], b: readonly MsPerRequest[]) =>
      pairedCpuBySegment(a, b, segmentOf);
    const armResults: Record<string, ArmResult> = {};
    for (const arm of arms) {
      const s = latencyStats(pooled.get(arm.name)!);
      armResults[arm.name] = {
        note: arm.note,
        requests: pooled.get(arm.name)!.length,
        p50: round(s.p50, 3),
        p90: round(s.p90, 3),
        p99: round(s.p99, 3),
        cpuMs: medianPerKey(cpuBlocks.get(arm.name)!),
        queuedMs: medianPerKey(queuedBlocks.get(arm.name)!),
      };
    }
    const cpu = (arm: string) => cpuBlocks.get(arm)!;
    const peerBlocks = perBlock.get('naive-peer')!;
    const overPeer: Record<string, PairedDifference> = {};
    for (const arm of arms.filter((a) => a.name !== 'naive-peer')) {
      overPeer[arm.name] = pairedDifference(perBlock.get(arm.name)!, peerBlocks);
    }
    const report: LoneReport = {
      at: new Date().toISOString(),
      machine: machineLine(),
      loadBefore,
      loadAfter: loadavg().map((l) => round(l, 2)),
      command: `npm run bench:lone -- ${process.argv.slice(2).join(' ')}`.trim(),
      settings: { seconds, blockMs, settleMs, order: 'shuffled', restarts, warmupRequests },
      arms: armResults,
      overPeer,
      aa: {
        HTTP: pairedDifference(perBlock.get('as-written-aa')!, perBlock.get('as-written')!),
        PredictStream: pairedDifference(
          perBlock.get('as-written-aa-grpc-stream')!,
          perBlock.get('as-written-grpc-stream')!,
        ),
      },
      cpu: {
        aa: {
          HTTP: pairedCpu(cpu('as-written-aa'), cpu('as-written')),
          PredictStream: pairedCpu(cpu('as-written-aa-grpc-stream'), cpu('as-written-grpc-stream')),
        },
        ...(baselineDir
          ? {
              baseline: {
                HTTP: pairedCpu(cpu('as-written'), cpu('as-written-baseline')),
                PredictStream: pairedCpu(
                  cpu('as-written-grpc-stream'),
                  cpu('as-written-baseline-grpc-stream'),
                ),
              },
            }
          : {}),
      },
      ...(baselineDir
        ? {
            baseline: {
              dir: baselineDir,
              ...(Object.keys(baselineEnv).length > 0 ? { env: baselineEnv } : {}),
              ...(baselineNodeArgs.length > 0 ? { nodeArgs: baselineNodeArgs } : {}),
              byTransport: {
                HTTP: pairedDifference(
                  perBlock.get('as-written')!,
                  perBlock.get('as-written-baseline')!,
                ),
                PredictStream: pairedDifference(
                  perBlock.get('as-written-grpc-stream')!,
                  perBlock.get('as-written-baseline-grpc-stream')!,
                ),
              },
            },
          }
        : {}),
    };
    mkdirSync(out, { recursive: true });
    const file = join(out, `${name}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(file.replace(/\.json$/, '.md'), render(report));
    process.stderr.write(`bench:lone: wrote ${file.replace(/\.json$/, '.{json,md}')}\n`);
  } finally {
    repo.remove();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error('bench:lone failed:', err);
    process.exit(1);
  });
}
