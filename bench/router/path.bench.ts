/**
 * `npm run bench:path [-- --mix short,mixed --seconds 8 --rounds 3 --param key=value ...]`:
 * where a lone request's time goes, hop by hop, at c=1 over HTTP. Starts the model host and
 * router as the router benchmark does (plus the naive peer), and in each round times, one
 * after another:
 *
 * - raw ORT b1 on the lone-batch session's shape (2 intra-op threads, spinning), back to back
 *   in this process: the least the model itself takes;
 * - the naive peer, one process doing HTTP, tokenizer and ORT;
 * - the router, reading the segments from the router's and the host's own metrics over the
 *   window (means per request): the router's stages, the host's request and its parts.
 *
 * What no metric sees is the difference of two that do: the edge (client latency minus the
 * router's request duration: HTTP parsing before the router's clock starts, writing the answer
 * after it stops, the loopback hop and this generator) and the gRPC leg (the router's infer
 * stage minus the host's request duration: the grpc-js client and server, protobuf both ways,
 * validation and two loopback hops). With `--baseline DIR` (another checkout, built), its host
 * and router run beside these and are timed in every round right after them, so a change to
 * either shows segment by segment against the code before it, in the same conditions.
 * Writes docs/benchmarks/path.{json,md}; `--render FILE.json`
 * renders a JSON file again, with the `analysis` lines written into it, as `npm run bench` does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildCorpus, type TextMix } from './bench-corpus';
import { latencyStats, metricSums, round } from './bench-measure';
import { loadBenchModel, type BenchModel } from './bench-model.loader';
import {
  BENCH_MODEL,
  startBenchMesh,
  startNaivePeer,
  ROOT,
  type BenchProcess,
} from './bench-processes';
import { asUsersWriteIt, ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';
import { keyValueOption, parseCliArgs } from '../../scripts/cli-args';
import { postJson } from './http-post';
import { RawOrtArm, type RawConfig } from './raw-ort.arm';

const { name: MODEL, version: VERSION, task: TASK, key: KEY } = BENCH_MODEL;
const CORES = availableParallelism();
const LONE: RawConfig = {
  batch: 1,
  sorted: false,
  sessions: 1,
  intraOpThreads: CORES,
  allowSpinning: true,
};

interface Args {
  render?: string;
  /** A built checkout whose host and router are timed beside these (`--baseline DIR`). */
  baseline?: string;
  mixes: TextMix[];
  seconds: number;
  rounds: number;
  models: string;
  out: string;
  /** Extra config.pbtxt parameters for the host's copy of the model (`--param key=value`). */
  params: Record<string, string>;
  /** The config as Triton users write it (`asUsersWriteIt`) instead of the tuned one. */
  asWritten: boolean;
}

function parseArgs(argv: string[]): Args {
  const { values: v } = parseCliArgs({
    args: argv,
    options: {
      render: { type: 'string' },
      baseline: { type: 'string' },
      mix: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      models: { type: 'string' },
      out: { type: 'string' },
      param: { type: 'string', multiple: true },
      'as-written': { type: 'boolean' },
    },
  });
  const mixes = (v.mix ?? 'short').split(',') as TextMix[];
  for (const m of mixes) {
    if (!['short', 'mixed', 'long'].includes(m)) throw new Error(`--mix: unknown mix '${m}'`);
  }
  return {
    render: v.render,
    baseline: v.baseline && resolve(v.baseline),
    mixes,
    seconds: Number(v.seconds ?? 8),
    rounds: Number(v.rounds ?? 3),
    models: resolve(v.models ?? join(ROOT, '.bench-models')),
    out: v.out ?? join(ROOT, 'docs', 'benchmarks', v['as-written'] ? 'path-as-written' : 'path'),
    asWritten: v['as-written'] ?? false,
    params: keyValueOption(v.param, 'param'),
  };
}

async function scrape(url: string): Promise<Map<string, number>> {
  return metricSums(await (await fetch(url)).text(), MODEL);
}

/** The lone request's segments, ms per request (means over the window). */
export interface PathSegments {
  client: number;
  edge: number;
  routerQueue: number;
  tokenize: number;
  grpcLeg: number;
  hostQueue: number;
  hostInput: number;
  ortRun: number;
  hostOutput: number;
  workerHop: number;
  postprocess: number;
  routerRest: number;
}

/**
 * Per-request means from two scrapes of the router's and the host's metrics and the client's
 * mean latency. Router histograms are in seconds, the host's Triton counters in µs.
 */
export function segmentsOf(
  router: [Map<string, number>, Map<string, number>],
  host: [Map<string, number>, Map<string, number>],
  clientMs: number,
): PathSegments {
  const d = (pair: [Map<string, number>, Map<string, number>], k: string) =>
    (pair[1].get(k) ?? 0) - (pair[0].get(k) ?? 0);
  const n = Math.max(1, d(router, 'mesh_router_request_duration_seconds_count'));
  const r = (k: string) => (d(router, k) / n) * 1000;
  const stage = (s: string) => r(`mesh_router_stage_duration_seconds_sum{${s}}`);
  const hn = Math.max(1, d(host, 'nv_inference_request_success'));
  const h = (k: string) => d(host, `nv_inference_${k}_duration_us`) / hn / 1000;
  const total = r('mesh_router_request_duration_seconds_sum');
  const infer = stage('infer');
  const hostRequest = h('request');
  const parts = {
    hostQueue: h('queue'),
    hostInput: h('compute_input'),
    ortRun: h('compute_infer'),
    hostOutput: h('compute_output'),
  };
  const staged = stage('queue') + stage('tokenize') + infer + stage('postprocess');
  const seg: PathSegments = {
    client: clientMs,
    edge: clientMs - total,
    routerQueue: stage('queue'),
    tokenize: stage('tokenize'),
    grpcLeg: infer - hostRequest,
    ...parts,
    workerHop: hostRequest - parts.hostQueue - parts.hostInput - parts.ortRun - parts.hostOutput,
    postprocess: stage('postprocess'),
    routerRest: total - staged,
  };
  return Object.fromEntries(
    Object.entries(seg).map(([k, v]: [string, number]) => [k, round(v, 3)]),
  ) as unknown as PathSegments;
}

interface Loop {
  mean: number;
  p50: number;
  requests: number;
}

/** Each timed loop starts after this much c=1 traffic, outside the scraped window. */
const WARM_UP_MS = 3000;

async function warmUp(shot: (i: number) => Promise<void>): Promise<void> {
  const end = performance.now() + WARM_UP_MS;
  for (let i = 0; i < 200 || performance.now() < end; i++) await shot(i);
}

/** c=1 closed loop for `seconds` (after `warmUp`); latencies in ms. */
async function loop(shot: (i: number) => Promise<void>, seconds: number): Promise<Loop> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const t = performance.now();
    await shot(i);
    lat.push(performance.now() - t);
  }
  return {
    mean: round(lat.reduce((a, b) => a + b, 0) / lat.length, 3),
    p50: round(latencyStats(lat).p50, 3),
    requests: lat.length,
  };
}

interface RoundResult {
  mix: TextMix;
  round: number;
  raw: { mean: number; p50: number };
  peer: Loop;
  router: Loop & { segments: PathSegments };
  baseline?: Loop & { segments: PathSegments };
}

interface Mesh {
  host: BenchProcess;
  router: BenchProcess;
  peer: BenchProcess;
  baseline?: { host: BenchProcess; router: BenchProcess };
}

/** c=1 through one router, with its and its host's metrics scraped around the timed loop. */
async function timeRouter(
  m: { host: BenchProcess; router: BenchProcess },
  body: (i: number) => string,
  seconds: number,
): Promise<Loop & { segments: PathSegments }> {
  const shot = (i: number) => postJson(`${m.router.url}/v1/predict`, body(i), KEY);
  await warmUp(shot);
  const routerMetrics = `${m.router.url}/metrics`;
  const hostMetrics = `${m.host.urls.metrics!}/metrics`;
  const r0 = await scrape(routerMetrics);
  const h0 = await scrape(hostMetrics);
  const loop_ = await loop(shot, seconds);
  const r1 = await scrape(routerMetrics);
  const h1 = await scrape(hostMetrics);
  return { ...loop_, segments: segmentsOf([r0, r1], [h0, h1], loop_.mean) };
}

async function oneRound(
  args: Args,
  model: BenchModel,
  mesh: Mesh,
  mix: TextMix,
  k: number,
): Promise<RoundResult> {
  const corpus = buildCorpus(mix, 2000);
  const body = (i: number) => JSON.stringify({ task: TASK, text: corpus[i % corpus.length] });
  const rawBatches = RawOrtArm.prepare(model, corpus, LONE);
  const raw = await RawOrtArm.measure(model, LONE, rawBatches, args.seconds * 500, 20);
  const peerShot = (i: number) => postJson(`${mesh.peer.url}/predict`, body(i));
  await warmUp(peerShot);
  const peer = await loop(peerShot, args.seconds);
  const router = await timeRouter(mesh, body, args.seconds);
  const baseline = mesh.baseline ? await timeRouter(mesh.baseline, body, args.seconds) : undefined;
  return {
    mix,
    round: k + 1,
    raw: { mean: round(1000 / raw.throughput, 3), p50: raw.p50 },
    peer,
    router,
    ...(baseline ? { baseline } : {}),
  };
}

const ROWS: [keyof PathSegments, string][] = [
  ['client', 'client latency, mean'],
  ['edge', 'edge: HTTP in and out around the router’s clock, loopback, generator'],
  ['routerQueue', 'router: hooks, controller, auth, validation, admission, route'],
  ['tokenize', 'router: tokenize'],
  ['grpcLeg', 'gRPC leg: grpc-js both ends, protobuf, host validation, 2 loopback hops'],
  ['hostQueue', 'host: batcher queue'],
  ['hostInput', 'host worker: input tensors'],
  ['ortRun', 'host worker: ORT run'],
  ['hostOutput', 'host worker: output tensors'],
  ['workerHop', 'host: batch assembly, worker hop both ways, split'],
  ['postprocess', 'router: postprocess'],
  ['routerRest', 'router: the rest (result, metrics)'],
];

/** What a run writes to JSON; `analysis` is added by hand and rendered under the tables. */
interface PathReport {
  date: string;
  machine: string;
  wallSeconds: number;
  args: Pick<Args, 'mixes' | 'seconds' | 'rounds' | 'baseline'> & {
    params?: Record<string, string>;
    asWritten?: boolean;
  };
  results: RoundResult[];
  analysis?: string[];
}

function render(report: PathReport): string {
  const { args, results } = report;
  const lines = [
    '# A lone request, hop by hop',
    '',
    `Machine: ${report.machine}. Run ${report.date}, ${report.wallSeconds} s: ` +
      `\`npm run bench:path -- --mix ${args.mixes.join(',')} --seconds ${args.seconds} --rounds ${args.rounds}${Object.entries(
        args.params ?? {},
      )
        .map(([k, v]) => ` --param ${k}=${v}`)
        .join(
          '',
        )}${args.asWritten ? ' --as-written' : ''}${args.baseline ? ` --baseline ${args.baseline}` : ''}\`.`,
    '',
    'c=1 over HTTP, one request at a time. Each round times raw ORT b1 (the lone-batch',
    'session’s shape, back to back in the bench process), the naive peer and the router, one',
    'after another, the peer and the router each after 3 s of warm-up. The router’s segments are',
    'means per request over the timed window from its own metrics and the',
    'host’s (`mesh_router_stage_duration_seconds`, `nv_inference_*_duration_us`); the edge',
    'and the gRPC leg are differences of two of those (see `bench/router/path.bench.ts`).',
    ...(args.baseline
      ? [
          'The baseline checkout’s host and router were timed right after these in every round;',
          'router cells read “this checkout / baseline”.',
        ]
      : []),
    '',
  ];
  const both = (r: RoundResult, pick: (x: Loop & { segments: PathSegments }) => number | string) =>
    r.baseline ? `${pick(r.router)} / ${pick(r.baseline)}` : `${pick(r.router)}`;
  for (const mix of args.mixes) {
    const rs = results.filter((r) => r.mix === mix);
    lines.push(
      `## ${mix}`,
      '',
      `| ms per request | ${rs.map((r) => `round ${r.round}`).join(' | ')} |`,
      `|---|${rs.map(() => '---').join('|')}|`,
      `| raw ORT b1, mean (p50) | ${rs.map((r) => `${r.raw.mean} (${r.raw.p50})`).join(' | ')} |`,
      `| naive peer, mean (p50) | ${rs.map((r) => `${r.peer.mean} (${r.peer.p50})`).join(' | ')} |`,
      `| router, mean (p50) | ${rs.map((r) => both(r, (x) => `${x.mean} (${x.p50})`)).join(' | ')} |`,
      `| peer − raw, mean | ${rs.map((r) => round(r.peer.mean - r.raw.mean, 3)).join(' | ')} |`,
      `| router − raw, mean | ${rs.map((r) => both(r, (x) => round(x.mean - r.raw.mean, 3))).join(' | ')} |`,
      `| host ORT run − raw, mean | ${rs.map((r) => both(r, (x) => round(x.segments.ortRun - r.raw.mean, 3))).join(' | ')} |`,
      ...ROWS.map(
        ([k, label]) =>
          `| ${label} | ${rs.map((r) => both(r, (x) => x.segments[k])).join(' | ')} |`,
      ),
      '',
    );
  }
  if (report.analysis?.length) lines.push('## Analysis', '', ...report.analysis, '');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) {
    const report = JSON.parse(readFileSync(args.render, 'utf8')) as PathReport;
    writeFileSync(args.render.replace(/\.json$/, '.md'), `${render(report)}\n`);
    return;
  }
  ensureBuiltAndGenerated(args.models, MODEL);
  const model = await loadBenchModel(args.models, MODEL, VERSION);
  const started = new Date();
  const t0 = performance.now();
  // As the router benchmark's mesh arm (one 1-thread instance per core, dispatch when idle),
  // or its as-written arm (one instance, 2 ms queue delay, the host's defaults).
  const repo = args.asWritten
    ? repositoryVariant(args.models, MODEL, args.params, { rewrite: asUsersWriteIt })
    : repositoryVariant(
        args.models,
        MODEL,
        { dispatch_when_idle: 'true', ...args.params },
        { instances: CORES },
      );
  const procs: BenchProcess[] = [];
  try {
    const { host, router } = await startBenchMesh(repo.root, procs, {
      keyPrefix: `bench-path-${process.pid}`,
    });
    const peer = await startNaivePeer(args.models, procs);
    const baseline = args.baseline
      ? await startBenchMesh(repo.root, procs, {
          keyPrefix: `bench-path-${process.pid}-baseline`,
          root: args.baseline,
        })
      : undefined;
    const results: RoundResult[] = [];
    for (const mix of args.mixes) {
      for (let k = 0; k < args.rounds; k++) {
        const r = await oneRound(args, model, { host, router, peer, baseline }, mix, k);
        console.log(`bench:path: ${mix} round ${r.round}: ${JSON.stringify(r)}`);
        results.push(r);
      }
    }
    const report: PathReport = {
      date: started.toISOString(),
      machine: `${CORES} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')} after`,
      wallSeconds: Math.round((performance.now() - t0) / 1000),
      args: {
        mixes: args.mixes,
        seconds: args.seconds,
        rounds: args.rounds,
        params: args.params,
        ...(args.asWritten ? { asWritten: true } : {}),
        ...(args.baseline ? { baseline: args.baseline } : {}),
      },
      results,
    };
    writeFileSync(`${args.out}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${args.out}.md`, `${render(report)}\n`);
    console.log(`bench:path: wrote ${args.out}.{json,md}`);
  } finally {
    for (const p of procs.reverse()) await p.stop('SIGTERM');
    repo.remove();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
