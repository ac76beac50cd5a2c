/**
 * `npm run bench:lone [-- --seconds 180 --block-ms 1000 --settle-ms 100 --name NAME]`: a lone
 * request (c=1) on the config as Triton users write it, against the naive peer, with the arms
 * taking turns in short blocks instead of whole rounds.
 *
 * Why: the c=1 goals of the as-written arm are margins of 1–1.5 ms, and on a shared VM the
 * interleaved rounds of `npm run bench` (each arm measured for tens of seconds in turn) put an
 * A/A pair up to 1.2 ms apart at c=1, because the machine's slow spells last about as long as a
 * round. Here every arm gets one block of `--block-ms` per cycle, so each cycle's blocks see the
 * same spell. Each arm's difference to the peer is taken block by block within a cycle, and its
 * median over the cycles is reported with a 95 % bootstrap interval (cycles resampled). A
 * second host and router of the same build (the `-aa` arms) give the band that noise alone
 * makes. The first `--settle-ms` of every block are not counted, so a process whose turn just
 * ended (ORT's pool threads spin for a spell after a run) does not slow the next arm's first
 * requests.
 *
 * `--baseline DIR` adds a third router and host built in another checkout (the mesh before a
 * change), and reports this build minus that one, block by block, per transport.
 *
 * Writes docs/benchmarks/<name>.{json,md}; `--render FILE.json` writes the Markdown of a saved
 * report again, with its `analysis`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseCliArgs } from '../../scripts/cli-args';
import { machineLine } from '../host/host-bench.report';
import { buildCorpus, seededRandom } from './bench-corpus';
import { latencyStats, medianOf, round } from './bench-measure';
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
}

interface ArmResult {
  note: string;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
}

const BOOTSTRAP_SEED = 20261204;

/** An arm's p50 minus another's, block by block within a cycle: median and 95 % interval. */
interface PairedDifference {
  median: number;
  low: number;
  high: number;
  cycles: number;
}

interface LoneReport {
  at: string;
  machine: string;
  loadBefore: number[];
  loadAfter: number[];
  command: string;
  settings: { seconds: number; blockMs: number; settleMs: number };
  arms: Record<string, ArmResult>;
  /** Each mesh arm against the peer. */
  overPeer: Record<string, PairedDifference>;
  /** The second mesh against the first, per transport: the noise band. */
  aa: Record<string, PairedDifference>;
  /** With `--baseline`: this build minus the baseline checkout's, per transport. */
  baseline?: { dir: string; byTransport: Record<string, PairedDifference> };
  analysis?: string;
}

function readArgs(argv: string[]) {
  return parseCliArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      baseline: { type: 'string' },
      'block-ms': { type: 'string' },
      'settle-ms': { type: 'string' },
      models: { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
    },
  }).values;
}

/**
 * Median of `a[j] - b[j]` over the cycles j, with a percentile bootstrap interval (resampling
 * cycles, a seeded generator so a report can be computed again).
 */
function pairedDifference(
  a: readonly number[],
  b: readonly number[],
  resamples = 2000,
): PairedDifference {
  const d = a.map((x, j) => x - (b[j] ?? NaN)).filter((x) => Number.isFinite(x));
  const random = seededRandom(BOOTSTRAP_SEED);
  const medians: number[] = [];
  for (let r = 0; r < resamples; r++) {
    medians.push(medianOf(d.map(() => d[Math.floor(random() * d.length)]!)));
  }
  medians.sort((x, y) => x - y);
  return {
    median: round(medianOf(d), 3),
    low: round(medians[Math.floor(resamples * 0.025)] ?? NaN, 3),
    high: round(medians[Math.ceil(resamples * 0.975) - 1] ?? NaN, 3),
    cycles: d.length,
  };
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
    `${d.median >= 0 ? '+' : ''}${d.median} (${d.low} … ${d.high}), ${d.cycles} cycles`;
  const goalRows = Object.entries(r.overPeer).map(([name, d]) => {
    const goal = GOALS[name];
    return `| ${name} | ${interval(d)} | ${goal === undefined ? '—' : `≤ +${goal}: ${verdict(d, goal)}`} |`;
  });
  const aaRows = Object.entries(r.aa).map(([name, d]) => `| ${name} | ${interval(d)} |`);
  const baselineRows = r.baseline
    ? [
        '',
        `## Before → after: this build minus the build in \`${r.baseline.dir}\` (negative: faster now)`,
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
    `Run ${r.at}: \`${r.command}\`; ${r.settings.seconds} s of blocks of ${r.settings.blockMs} ms, the first ${r.settings.settleMs} ms of each not counted.`,
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

/** Which mesh an arm goes through: its name suffix, its path's words, and the build it runs. */
interface MeshSpec {
  suffix: string;
  which: string;
  /** The checkout whose build runs (another commit, for a before/after); this one if unset. */
  root?: string;
}

/** A host and a router on the as-written config; their two c=1 arms. */
async function startMesh(
  repository: string,
  spec: MeshSpec,
  procs: BenchProcess[],
  clients: RouterGrpcClient[],
  corpus: readonly string[],
): Promise<Arm[]> {
  const { suffix, which, root } = spec;
  const { router } = await startBenchMesh(repository, procs, {
    keyPrefix: `bench-lone-${process.pid}${suffix}`,
    root,
  });
  const grpc = new RouterGrpcClient(router.urls.grpc!, KEY);
  clients.push(grpc);
  const text = (i: number) => corpus[i % corpus.length]!;
  return [
    {
      name: `as-written${suffix}`,
      note: `HTTP → ${which}`,
      shot: (i) =>
        postJson(`${router.url}/v1/predict`, JSON.stringify({ task: TASK, text: text(i) }), KEY),
    },
    {
      name: `as-written${suffix}-grpc-stream`,
      note: `one PredictStream call → ${which}`,
      shot: (i) => grpc.predictOnStream(TASK, text(i)),
    },
  ];
}

/** One block of an arm: the latencies after the settle time, and the request counter after. */
async function block(
  arm: Arm,
  from: number,
  blockMs: number,
  settleMs: number,
): Promise<{ latencies: number[]; next: number }> {
  const start = performance.now();
  const latencies: number[] = [];
  let i = from;
  while (performance.now() - start < blockMs) {
    const t = performance.now();
    await arm.shot(i++);
    if (t - start >= settleMs) latencies.push(performance.now() - t);
  }
  return { latencies, next: i };
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
  if (!(seconds > 0 && blockMs > settleMs && settleMs >= 0)) {
    throw new Error('--seconds must be > 0 and --block-ms > --settle-ms >= 0');
  }
  const models = flags.models ?? join(ROOT, '.bench-models');
  const baselineDir = flags.baseline === undefined ? undefined : resolve(flags.baseline);
  const name = flags.name ?? 'lone';
  const out = flags.out ?? join(ROOT, 'docs', 'benchmarks');
  ensureBuiltAndGenerated(models, MODEL);
  const corpus = buildCorpus('short', 2000);
  const repo = repositoryVariant(models, MODEL, {}, { rewrite: asUsersWriteIt });
  const procs: BenchProcess[] = [];
  const clients: RouterGrpcClient[] = [];
  const loadBefore = loadavg().map((l) => round(l, 2));
  try {
    const peer = await startNaivePeer(models, procs);
    const rest = [procs, clients, corpus] as const;
    const arms: Arm[] = [
      {
        name: 'naive-peer',
        note: 'HTTP → Fastify + ORT, session.run per request',
        shot: (i) =>
          postJson(
            `${peer.url}/predict`,
            JSON.stringify({ task: TASK, text: corpus[i % corpus.length] }),
          ),
      },
      ...(await startMesh(repo.root, { suffix: '', which: 'router → host' }, ...rest)),
      ...(await startMesh(
        repo.root,
        { suffix: '-aa', which: 'a second router and host of this build' },
        ...rest,
      )),
      ...(baselineDir
        ? await startMesh(
            repo.root,
            {
              suffix: '-baseline',
              which: `router → host built in ${baselineDir}`,
              root: baselineDir,
            },
            ...rest,
          )
        : []),
    ];
    let i = 0;
    // Warm-up: V8 compiles each request path over the first seconds of load.
    for (const arm of arms) i = (await block(arm, i, 6000, 6000)).next;
    const perBlock = new Map<string, number[]>(arms.map((a) => [a.name, []]));
    const pooled = new Map<string, number[]>(arms.map((a) => [a.name, []]));
    const stop = performance.now() + seconds * 1000;
    while (performance.now() < stop) {
      for (const arm of arms) {
        const b = await block(arm, i, blockMs, settleMs);
        i = b.next;
        perBlock.get(arm.name)!.push(medianOf(b.latencies));
        pooled.get(arm.name)!.push(...b.latencies);
      }
    }
    const armResults: Record<string, ArmResult> = {};
    for (const arm of arms) {
      const s = latencyStats(pooled.get(arm.name)!);
      armResults[arm.name] = {
        note: arm.note,
        requests: pooled.get(arm.name)!.length,
        p50: round(s.p50, 3),
        p90: round(s.p90, 3),
        p99: round(s.p99, 3),
      };
    }
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
      settings: { seconds, blockMs, settleMs },
      arms: armResults,
      overPeer,
      aa: {
        HTTP: pairedDifference(perBlock.get('as-written-aa')!, perBlock.get('as-written')!),
        PredictStream: pairedDifference(
          perBlock.get('as-written-aa-grpc-stream')!,
          perBlock.get('as-written-grpc-stream')!,
        ),
      },
      ...(baselineDir
        ? {
            baseline: {
              dir: baselineDir,
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
    for (const c of clients) c.close();
    for (const p of procs.reverse()) await p.stop('SIGTERM');
    repo.remove();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error('bench:lone failed:', err);
    process.exit(1);
  });
}
