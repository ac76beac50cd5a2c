/**
 * `npm run bench [-- --quick]`: the router benchmark of docs/benchmarks/router.{json,md}.
 * Arms, side by side in one run on the same small model: the raw-ORT ceiling (best of batch
 * size × length sorting × thread split), client → router → model host over HTTP and over gRPC,
 * the same behind a host that batches only equal shapes with Triton's queue-delay rule (router
 * padding to length buckets), a naive single-process peer, and an open-loop fixed-rate arm.
 * Builds and generates the bench models first when they are missing.
 */
import { availableParallelism, cpus } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedis, closeRedis, formatHostPort } from '@mesh/config';
import { UsageError, keyValueOption, parseCliArgs } from '../../scripts/cli-args';
import { RedisClusterHarness } from '../../test/support/redis-servers';
import { buildCorpus, lengthHistogram, type TextMix } from './bench-corpus';
import { measure, openLoop, round, type MeasureOptions, type PointResult } from './bench-measure';
import { loadBenchModel, type BenchModel } from './bench-model.loader';
import {
  BENCH_MODEL,
  startNaivePeer,
  ROOT,
  startBenchHost,
  startProcess,
  waitReady,
  type BenchProcess,
} from './bench-processes';
import { asUsersWriteIt, ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';
import { RawOrtArm, rawLabel, type RawConfig } from './raw-ort.arm';
import { RouterGrpcClient } from './router-grpc.client';
import { postJson } from './http-post';
import { OtlpSink } from './otlp-sink';
import { headline, renderMarkdown, type BenchPoint, type BenchReport } from './bench-report';

/** The cores this process may use (follows taskset/cgroups); every arm gets all of them. */
const CORES = availableParallelism();
const { name: MODEL, version: VERSION, task: TASK, key: KEY } = BENCH_MODEL;
/** Length bucket of the router in front of the Triton-like host. */
const PAD_MULTIPLE = 16;

interface Args {
  quick: boolean;
  models: string;
  out: string;
  name: string;
  concurrency: number[];
  mixes: TextMix[];
  reps: number;
  /**
   * Seconds of unrecorded c=1 load per closed arm before the first measured point
   * (`--warmup-seconds`; see WARM_UP_SECONDS).
   */
  warmupSeconds: number;
  /** Model instances of both hosts (`--instances`, default one per core). */
  instances: number;
  arms: string[];
  /** `--skip-ceiling` / `--skip-open`: leave out the raw-ORT and open-loop arms (short runs). */
  skipCeiling: boolean;
  skipOpen: boolean;
  /** A checkout whose built router the `router-baseline` arm runs. */
  baseline?: string;
  /**
   * `--baseline-env NAME=value` (repeatable): environment of the baseline arms' hosts and
   * routers only, so one setting can be compared on one build (`--baseline .`).
   */
  baselineEnv: Record<string, string>;
}

/**
 * Unrecorded c=1 load per closed arm before the first measured point. V8 compiles a request path
 * as it runs: from the first request, a router and host of the config as written spent 1.99 and
 * 1.06 CPU-ms per lone request on their event loops over the first 5 s, 1.44 and 0.78 at 10–15 s,
 * and about 1.3 and 0.65 from 25 s on, with the p50 falling from 7.5 to about 5.9 ms. Without it,
 * the first rounds at c=1 (the short texts come first) measured each process while it was still
 * compiling, and the mixed texts' rounds, after the whole short sweep, measured it warm.
 */
const WARM_UP_SECONDS = 30;

/**
 * `router-nocoalesce`: the same router with ROUTER_COALESCE=off, so coalescing shows side by side.
 * `router-as-written` / `-grpc` / `-grpc-stream`: a router at default settings before a host
 * whose config is written as Triton users write it (`asUsersWriteIt`): what a user gets without
 * tuning, over HTTP, unary gRPC and one PredictStream call. `router-aa`: a second router of this
 * build, so every default run carries its own noise band.
 */
const CLOSED_ARMS = [
  'router',
  'router-aa',
  'router-nocoalesce',
  'router-grpc',
  'router-triton',
  'router-as-written',
  'router-as-written-grpc',
  'router-as-written-grpc-stream',
  'naive-peer',
];

/**
 * Opt-in arms (`--arms`): gRPC into the router with every request on one PredictStream call
 * (`router-grpc-stream`), the mesh router with traffic signals off, to price recording them,
 * gRPC into the router with coalescing off, and `router-baseline`: router and model host built in
 * another checkout (`--baseline <dir>`, e.g. the commit before a change), the mesh before it.
 */
const EXTRA_ARMS = [
  'router-grpc-stream',
  'router-nosignals',
  'router-grpc-nocoalesce',
  'router-unary',
  'router-baseline',
  'router-as-written-baseline',
  'router-as-written-baseline-grpc',
  'router-redis-cluster',
  'router-tracing',
];

/**
 * The command line: the run's options, or `{ render }` for `--render [router.json]`. An unknown
 * flag or a missing value throws a UsageError naming it.
 */
function parseArgs(argv: string[]): Args | { render: string } {
  const { values: v, positionals } = parseCliArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      arms: { type: 'string' },
      models: { type: 'string' },
      out: { type: 'string' },
      name: { type: 'string' },
      concurrency: { type: 'string' },
      mixes: { type: 'string' },
      reps: { type: 'string' },
      'warmup-seconds': { type: 'string' },
      instances: { type: 'string' },
      'skip-ceiling': { type: 'boolean' },
      'skip-open': { type: 'boolean' },
      baseline: { type: 'string' },
      'baseline-env': { type: 'string', multiple: true },
      // `--render` takes its file as an optional positional: a bare `--render` means router.json.
      render: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (v.render)
    return { render: positionals[0] ?? join(ROOT, 'docs', 'benchmarks', 'router.json') };
  if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
  const quick = v.quick ?? false;
  const arms = (v.arms ?? CLOSED_ARMS.join(',')).split(',');
  const unknown = arms.filter((a) => !CLOSED_ARMS.includes(a) && !EXTRA_ARMS.includes(a));
  if (unknown.length > 0) {
    throw new Error(
      `--arms: unknown ${unknown.join(', ')}; known: ${[...CLOSED_ARMS, ...EXTRA_ARMS].join(', ')}`,
    );
  }
  const warmupSeconds = Number(v['warmup-seconds'] ?? (quick ? 3 : WARM_UP_SECONDS));
  if (!Number.isFinite(warmupSeconds) || warmupSeconds < 0) {
    throw new UsageError(`--warmup-seconds: expected seconds ≥ 0, got '${v['warmup-seconds']}'`);
  }
  return {
    quick,
    models: v.models ?? join(ROOT, '.bench-models'),
    out: v.out ?? join(ROOT, 'docs', 'benchmarks'),
    name: v.name ?? 'router',
    concurrency: (v.concurrency ?? (quick ? '1,32,64' : '1,8,32,64')).split(',').map(Number),
    mixes: (v.mixes ?? 'short,mixed').split(',') as TextMix[],
    reps: Number(v.reps ?? 3),
    warmupSeconds,
    arms,
    instances: Number(v.instances ?? CORES),
    skipCeiling: v['skip-ceiling'] ?? false,
    skipOpen: v['skip-open'] ?? false,
    baseline: v.baseline,
    baselineEnv: keyValueOption(v['baseline-env'], 'baseline-env'),
  };
}

function machine(instances: number): BenchReport['machine'] {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const flags = /^flags\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.split(' ') ?? [];
  const ortVersion = (
    JSON.parse(
      readFileSync(join(ROOT, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  return {
    cores: CORES,
    cpu: cpus()[0]?.model ?? 'unknown',
    flags: flags.filter((f) =>
      /^(avx|avx2|avx512f|avx512_vnni|avx_vnni|fma|f16c|sse4_2|amx\w*)$/.test(f),
    ),
    node: process.version,
    onnxruntime: ortVersion,
    threads:
      `${CORES} cores (os.availableParallelism()); hosts: ${instances} instance(s) × intra-op ${Math.max(1, Math.floor(CORES / instances))} (cores ÷ instances, the host's default), ` +
      `plus a lone-batch session × intra-op ${CORES} that spins during its runs only; ` +
      `router-as-written: 1 instance × intra-op ${CORES}, spinning past its runs for ORT's bounded spell (the host's defaults); ` +
      `naive peer: 1 session × intra-op ${CORES}, ORT defaults otherwise; ` +
      `raw ORT: each configuration names its split`,
    loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  };
}

/** `--render <router.json>`: recompute the headline and rewrite the Markdown beside it. */
function rerender(file: string): void {
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  report.headline = headline(report.points, report.machine.cores);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(file.replace(/\.json$/, '.md'), renderMarkdown(report));
  log(`re-rendered ${file}`);
}

interface Procs {
  hostMesh: BenchProcess;
  hostTriton: BenchProcess;
  router: BenchProcess;
  routerTriton: BenchProcess;
  /** Started only when `--arms` names `router-nosignals`. */
  routerQuiet?: BenchProcess;
  /** Started only when `--arms` names a `*-nocoalesce` arm. */
  routerPlain?: BenchProcess;
  /** Started only when `--arms` names `router-unary`. */
  routerUnary?: BenchProcess;
  /** Started only when `--arms` names `router-baseline` (with its own baseline host). */
  routerBaseline?: BenchProcess;
  hostBaseline?: BenchProcess;
  /** Started only when `--arms` names a `router-as-written*` arm (with its own host). */
  routerAsWritten?: BenchProcess;
  hostAsWritten?: BenchProcess;
  /** Started only when `--arms` names a `router-as-written-baseline*` arm (needs --baseline). */
  routerAsWrittenBaseline?: BenchProcess;
  hostAsWrittenBaseline?: BenchProcess;
  /** Started only when `--arms` names `router-aa`: a second router of this build. */
  routerAa?: BenchProcess;
  /** Started only when `--arms` names `router-redis-cluster`: this build on a Redis Cluster. */
  routerRedisCluster?: BenchProcess;
  /** Started only when `--arms` names `router-tracing` (with its own traced host). */
  routerTracing?: BenchProcess;
  hostTracing?: BenchProcess;
  peer: BenchProcess;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if ('render' in args) return rerender(args.render);
  const started = Date.now();
  ensureBuiltAndGenerated(args.models, MODEL);
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const model = await loadBenchModel(args.models, MODEL, VERSION);
  const corpora = Object.fromEntries(args.mixes.map((m) => [m, buildCorpus(m, 2000)])) as Record<
    TextMix,
    string[]
  >;
  const histograms = Object.fromEntries(
    args.mixes.map((m) => [
      m,
      lengthHistogram(corpora[m].map((t) => model.pre.encode([{ text: t }]).tokenCounts[0] ?? 0)),
    ]),
  );
  log(`corpus token lengths: ${JSON.stringify(histograms)}; ${CORES} cores; load ${loadBefore}`);
  const prefix = `bench-router-${process.pid}`;
  // The mesh's host dispatches at once to an idle instance (its default); the Triton-like one
  // batches only equal shapes in arrival order, unbalanced, and always waits max_queue_delay for
  // partners, as Triton does. One 1-thread instance per core: the best thread split of the
  // raw-ORT ceiling, as docs/models.md recommends for CPU hosts (intra-op threads default to
  // cores ÷ instances).
  // dispatch_when_idle is the host's default now; it stays written so that a `--baseline` build
  // from before that default runs the same tuned configuration.
  const meshRepo = repositoryVariant(
    args.models,
    MODEL,
    { dispatch_when_idle: 'true' },
    { instances: args.instances },
  );
  const tritonRepo = repositoryVariant(
    args.models,
    MODEL,
    {
      dispatch_when_idle: 'false',
      balance_instances: 'false',
      max_padding_ratio: '1',
      batch_order: 'arrival',
      lone_batch_threads: '0',
    },
    { instances: args.instances },
  );
  const asWrittenRepo = repositoryVariant(args.models, MODEL, {}, { rewrite: asUsersWriteIt });
  const all: BenchProcess[] = [];
  let redisCluster: RedisClusterHarness | undefined;
  let sink: OtlpSink | undefined;
  try {
    const host = (name: string, repo: string, root = ROOT, env: Record<string, string> = {}) =>
      startBenchHost(name, repo, MODEL, { root, env });
    const router = (
      name: string,
      h: BenchProcess,
      repo: string,
      pad: number | undefined,
      extra: Record<string, string> = {},
      root = ROOT,
    ) =>
      startProcess(
        name,
        'dist/apps/router/src/main.js',
        [],
        {
          ROUTER_HTTP_PORT: '0',
          ROUTER_GRPC_PORT: '0',
          REDIS_KEY_PREFIX: `${prefix}-${name}`,
          MODEL_REPOSITORY: repo,
          KSERVE_ENDPOINTS: h.urls.grpc!.replace(/^grpc:\/\//, ''),
          ...(pad === undefined ? {} : { ROUTER_PAD_MULTIPLE: String(pad) }),
          ...extra,
        },
        ['http', 'grpc'],
        undefined,
        root,
      );
    const hostMesh = await host('model-host', meshRepo.root);
    all.push(hostMesh);
    const hostTriton = await host('model-host-triton', tritonRepo.root);
    all.push(hostTriton);
    await waitReady(`${hostMesh.urls.http}/healthz/ready`);
    await waitReady(`${hostTriton.urls.http}/healthz/ready`);
    const routerMesh = await router('router', hostMesh, meshRepo.root, 0);
    all.push(routerMesh);
    const routerTriton = await router('router-triton', hostTriton, tritonRepo.root, PAD_MULTIPLE);
    all.push(routerTriton);
    const routerQuiet = args.arms.includes('router-nosignals')
      ? await router('router-nosignals', hostMesh, meshRepo.root, 0, {
          ROUTER_TRAFFIC_SIGNALS: 'off',
        })
      : undefined;
    if (routerQuiet) all.push(routerQuiet);
    const routerPlain = args.arms.some((a) => a.endsWith('-nocoalesce'))
      ? await router('router-nocoalesce', hostMesh, meshRepo.root, 0, { ROUTER_COALESCE: 'off' })
      : undefined;
    if (routerPlain) all.push(routerPlain);
    // A second router of this build on the same host: an A/A pair with `router`, whose spread is
    // the noise a before/after in this run has to beat.
    const routerAa = args.arms.includes('router-aa')
      ? await router('router-aa', hostMesh, meshRepo.root, 0)
      : undefined;
    if (routerAa) all.push(routerAa);
    // The same router on a Redis Cluster (3 primaries + 3 replicas on loopback) instead of the
    // standalone Redis: what cluster mode costs the hot path (heartbeats, signals, rate-limit
    // leases); read against the A/A pair's spread.
    redisCluster = args.arms.includes('router-redis-cluster')
      ? await RedisClusterHarness.start({ primaries: 3, replicas: 1 })
      : undefined;
    const routerRedisCluster =
      redisCluster?.endpoint.mode === 'cluster'
        ? await router('router-redis-cluster', hostMesh, meshRepo.root, 0, {
            REDIS_URL: '',
            REDIS_CLUSTER_NODES: redisCluster.endpoint.nodes.map(formatHostPort).join(','),
          })
        : undefined;
    if (routerRedisCluster) all.push(routerRedisCluster);
    // This build with tracing on at 100 % sampling, router and its own host, exporting
    // OTLP/HTTP protobuf (the default encoding) to a sink in this process that reads and drops
    // every export: the price of tracing everything, read against the A/A pair's spread.
    sink = args.arms.includes('router-tracing') ? await OtlpSink.start() : undefined;
    const traced = sink && {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_SAMPLER: 'always_on',
    };
    const hostTracing = traced
      ? await startBenchHost('model-host-tracing', meshRepo.root, MODEL, { env: traced })
      : undefined;
    if (hostTracing) {
      all.push(hostTracing);
      await waitReady(`${hostTracing.urls.http}/healthz/ready`);
    }
    const routerTracing = hostTracing
      ? await router('router-tracing', hostTracing, meshRepo.root, 0, traced)
      : undefined;
    if (routerTracing) all.push(routerTracing);
    const routerUnary = args.arms.includes('router-unary')
      ? await router('router-unary', hostMesh, meshRepo.root, 0, { KSERVE_LONE_STREAM: 'off' })
      : undefined;
    if (routerUnary) all.push(routerUnary);
    const baselineArms = args.arms.filter((a) => a.includes('baseline'));
    if (baselineArms.length > 0 && !args.baseline) {
      throw new Error(
        `--arms ${baselineArms.join(',')} needs --baseline <checkout with a built router>`,
      );
    }
    // The whole mesh as built in the baseline checkout (its router on its own host), so a
    // before/after of router and host changes runs in one sitting.
    const hostBaseline = args.arms.includes('router-baseline')
      ? await host('model-host-baseline', meshRepo.root, args.baseline, args.baselineEnv)
      : undefined;
    if (hostBaseline) {
      all.push(hostBaseline);
      await waitReady(`${hostBaseline.urls.http}/healthz/ready`);
    }
    const routerBaseline = hostBaseline
      ? await router(
          'router-baseline',
          hostBaseline,
          meshRepo.root,
          0,
          args.baselineEnv,
          args.baseline,
        )
      : undefined;
    if (routerBaseline) all.push(routerBaseline);
    // The router at its defaults (no pad multiple, coalescing as deployed) before a host that
    // reads the config as written.
    const hostAsWritten = args.arms.some((a) => a.startsWith('router-as-written'))
      ? await host('model-host-as-written', asWrittenRepo.root)
      : undefined;
    if (hostAsWritten) {
      all.push(hostAsWritten);
      await waitReady(`${hostAsWritten.urls.http}/healthz/ready`);
    }
    const routerAsWritten = hostAsWritten
      ? await router('router-as-written', hostAsWritten, asWrittenRepo.root, undefined)
      : undefined;
    if (routerAsWritten) all.push(routerAsWritten);
    // The same config as written, served by the baseline build: the before of "fast by default".
    const hostAsWrittenBaseline = args.arms.some((a) => a.startsWith('router-as-written-baseline'))
      ? await host(
          'model-host-as-written-baseline',
          asWrittenRepo.root,
          args.baseline,
          args.baselineEnv,
        )
      : undefined;
    if (hostAsWrittenBaseline) {
      all.push(hostAsWrittenBaseline);
      await waitReady(`${hostAsWrittenBaseline.urls.http}/healthz/ready`);
    }
    const routerAsWrittenBaseline = hostAsWrittenBaseline
      ? await router(
          'router-as-written-baseline',
          hostAsWrittenBaseline,
          asWrittenRepo.root,
          undefined,
          args.baselineEnv,
          args.baseline,
        )
      : undefined;
    if (routerAsWrittenBaseline) all.push(routerAsWrittenBaseline);
    await waitReady(`${routerMesh.url}/healthz/ready`);
    await waitReady(`${routerTriton.url}/healthz/ready`);
    if (routerQuiet) await waitReady(`${routerQuiet.url}/healthz/ready`);
    if (routerPlain) await waitReady(`${routerPlain.url}/healthz/ready`);
    if (routerUnary) await waitReady(`${routerUnary.url}/healthz/ready`);
    if (routerBaseline) await waitReady(`${routerBaseline.url}/healthz/ready`);
    if (routerAsWritten) await waitReady(`${routerAsWritten.url}/healthz/ready`);
    if (routerAsWrittenBaseline) await waitReady(`${routerAsWrittenBaseline.url}/healthz/ready`);
    if (routerAa) await waitReady(`${routerAa.url}/healthz/ready`);
    if (routerRedisCluster) await waitReady(`${routerRedisCluster.url}/healthz/ready`);
    if (routerTracing) await waitReady(`${routerTracing.url}/healthz/ready`);
    const peer = await startNaivePeer(args.models, all);
    const procs: Procs = {
      hostMesh,
      hostTriton,
      router: routerMesh,
      routerTriton,
      routerQuiet,
      routerPlain,
      routerUnary,
      routerBaseline,
      hostBaseline,
      routerAsWritten,
      hostAsWritten,
      routerAsWrittenBaseline,
      hostAsWrittenBaseline,
      routerAa,
      routerRedisCluster,
      routerTracing,
      hostTracing,
      peer,
    };
    const points: BenchPoint[] = [];
    for (const [k, mix] of args.mixes.entries()) {
      if (!args.skipCeiling) points.push(...(await ceiling(args, model, corpora[mix], mix)));
      // The processes live through every mix, so one warm-up, before the first, serves all.
      const warmupMs = k === 0 ? args.warmupSeconds * 1000 : 0;
      points.push(...(await closedLoop(args, corpora[mix], mix, procs, warmupMs)));
      if (!args.skipOpen)
        points.push(...(await openLoopPoints(args, corpora[mix], mix, procs, points)));
    }
    const report: BenchReport = {
      name: args.name,
      date: new Date().toISOString(),
      quick: args.quick,
      machine: { ...machine(args.instances), loadAverageBefore: loadBefore },
      model: `${MODEL} v${VERSION} (small: 6 layers, hidden 384), pipeline ${model.pre.pipeline.id}, maxLength ${model.pre.manifest.maxLength}`,
      corpus: histograms,
      reps: args.reps,
      warmupSeconds: args.warmupSeconds,
      ...(args.baseline ? { baseline: { dir: args.baseline, env: args.baselineEnv } } : {}),
      points,
      headline: headline(points, CORES),
      durationSeconds: Math.round((Date.now() - started) / 1000),
    };
    mkdirSync(args.out, { recursive: true });
    writeFileSync(join(args.out, `${args.name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(args.out, `${args.name}.md`), renderMarkdown(report));
    log(`wrote ${join(args.out, `${args.name}.{json,md}`)} in ${report.durationSeconds} s`);
  } finally {
    for (const p of all.reverse()) await p.stop();
    await redisCluster?.stop();
    if (sink) log(`otlp sink: ${sink.seen.exports} exports, ${sink.seen.bytes} bytes`);
    await sink?.stop();
    meshRepo.remove();
    tritonRepo.remove();
    asWrittenRepo.remove();
    const redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'bench' });
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await closeRedis(redis);
  }
}

/** Raw-ORT configurations: batch size × arrival/sorted × one 2-thread session or 2×1 workers. */
function rawConfigs(): RawConfig[] {
  const out: RawConfig[] = [
    { batch: 1, sorted: false, sessions: 1, intraOpThreads: CORES, allowSpinning: true },
  ];
  for (const batch of [1, 8, 16, 32]) {
    // Arrival order is priced at 8 and 32; 16 only adds a candidate for the best (sorted).
    const orders = batch === 1 ? [false] : batch === 16 ? [true] : [false, true];
    for (const sorted of orders) {
      out.push({ batch, sorted, sessions: 1, intraOpThreads: CORES, allowSpinning: false });
      if (CORES > 1) {
        out.push({ batch, sorted, sessions: CORES, intraOpThreads: 1, allowSpinning: false });
      }
    }
  }
  // The host's reference at c=32: batches of 8 (about what it forms there), sorted only within
  // the 32 requests a closed loop of 32 can have waiting; not a ceiling candidate in practice.
  out.push({
    batch: 8,
    sorted: true,
    window: 32,
    sessions: CORES,
    intraOpThreads: 1,
    allowSpinning: false,
  });
  return out;
}

function windows(args: Args): Omit<MeasureOptions, 'concurrency' | 'pids'> {
  return args.quick
    ? { warmup: 50, windowMs: 2000, minWindows: 1, maxWindows: 1 }
    : { warmup: 200, windowMs: 4000, minWindows: 3, maxWindows: 4 };
}

/** The median run of an arm by throughput, with every run's throughput kept. */
function median<R extends PointResult>(runs: R[]): R & { runs: number[] } {
  const sorted = [...runs].sort((a, b) => a.throughput - b.throughput);
  return { ...sorted[Math.floor(sorted.length / 2)]!, runs: runs.map((r) => r.throughput) };
}

async function ceiling(
  args: Args,
  model: BenchModel,
  corpus: string[],
  mix: TextMix,
): Promise<BenchPoint[]> {
  const configs = rawConfigs();
  const prepared = configs.map((c) => RawOrtArm.prepare(model, corpus, c));
  const runs: (PointResult & { tokensPerItem: number })[][] = configs.map(() => []);
  const ms = args.quick ? 1500 : 4000;
  for (let rep = 0; rep < args.reps; rep++) {
    for (const [k, c] of configs.entries()) {
      runs[k]!.push(await RawOrtArm.measure(model, c, prepared[k]!, ms, c.batch === 1 ? 20 : 4));
    }
  }
  return configs.map((c, k) => {
    const r = median(runs[k]!);
    const corpusTokens = round(RawOrtArm.tokensPerItem(prepared[k]!), 1);
    const note = `pre-tokenized, batches back to back; ${r.tokensPerItem} real tokens per item run (corpus ${corpusTokens})`;
    return point(rawLabel(c), mix, c.batch, r, note);
  });
}

async function closedLoop(
  args: Args,
  corpus: string[],
  mix: TextMix,
  p: Procs,
  warmupMs: number,
): Promise<BenchPoint[]> {
  const body = (i: number) => JSON.stringify({ task: TASK, text: corpus[i % corpus.length] });
  const grpc = new RouterGrpcClient(p.router.urls.grpc!, KEY);
  const plainGrpc = p.routerPlain && new RouterGrpcClient(p.routerPlain.urls.grpc!, KEY);
  const asWrittenGrpc =
    p.routerAsWritten && new RouterGrpcClient(p.routerAsWritten.urls.grpc!, KEY);
  const asWrittenBaselineGrpc =
    p.routerAsWrittenBaseline && new RouterGrpcClient(p.routerAsWrittenBaseline.urls.grpc!, KEY);
  const arms: Record<
    string,
    { shot: (i: number) => Promise<void>; pids: Record<string, number>; note: string }
  > = {
    router: {
      shot: (i) => postJson(`${p.router.url}/v1/predict`, body(i), KEY),
      pids: { router: p.router.pid, host: p.hostMesh.pid },
      note: 'HTTP → router (coalescing on, the default) → KServe gRPC → host (dispatch when idle, balanced instances, length-ordered batches, no request padded beyond 1.25×)',
    },
    ...(p.routerQuiet && {
      'router-nosignals': {
        shot: (i: number) => postJson(`${p.routerQuiet!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerQuiet.pid, host: p.hostMesh.pid },
        note: 'as router, with ROUTER_TRAFFIC_SIGNALS=off (same host)',
      },
    }),
    ...(p.routerPlain && {
      'router-nocoalesce': {
        shot: (i: number) => postJson(`${p.routerPlain!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerPlain.pid, host: p.hostMesh.pid },
        note: 'as router, with ROUTER_COALESCE=off: one backend call per request (same host)',
      },
      'router-grpc-nocoalesce': {
        shot: (i: number) => plainGrpc!.predict(TASK, corpus[i % corpus.length]!),
        pids: { router: p.routerPlain.pid, host: p.hostMesh.pid },
        note: 'as router-grpc, with ROUTER_COALESCE=off (same host)',
      },
    }),
    ...(p.routerUnary && {
      'router-unary': {
        shot: (i: number) => postJson(`${p.routerUnary!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerUnary.pid, host: p.hostMesh.pid },
        note: 'as router, with KSERVE_LONE_STREAM=off: a unary ModelInfer per backend call (same host)',
      },
    }),
    ...(p.routerBaseline && {
      'router-baseline': {
        shot: (i: number) => postJson(`${p.routerBaseline!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerBaseline.pid, host: p.hostBaseline!.pid },
        note: 'router and host built in the --baseline checkout (the mesh before a change)',
      },
    }),
    'router-grpc': {
      shot: (i) => grpc.predict(TASK, corpus[i % corpus.length]!),
      pids: { router: p.router.pid, host: p.hostMesh.pid },
      note: 'gRPC → router → KServe gRPC → host (same host as router)',
    },
    'router-grpc-stream': {
      shot: (i) => grpc.predictOnStream(TASK, corpus[i % corpus.length]!),
      pids: { router: p.router.pid, host: p.hostMesh.pid },
      note: 'as router-grpc, every request on one PredictStream call (same router and host)',
    },
    'router-triton': {
      shot: (i) => postJson(`${p.routerTriton.url}/v1/predict`, body(i), KEY),
      pids: { router: p.routerTriton.pid, host: p.hostTriton.pid },
      note: `HTTP → router (pad to multiples of ${PAD_MULTIPLE}) → host batching equal shapes only, Triton's delay rule`,
    },
    ...(p.routerAsWritten && {
      'router-as-written': {
        shot: (i: number) => postJson(`${p.routerAsWritten!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerAsWritten.pid, host: p.hostAsWritten!.pid },
        note: 'HTTP → router (defaults) → host with the config as Triton users write it: 1 instance, max_queue_delay 2 ms, no mesh parameters',
      },
      'router-as-written-grpc': {
        shot: (i: number) => asWrittenGrpc!.predict(TASK, corpus[i % corpus.length]!),
        pids: { router: p.routerAsWritten.pid, host: p.hostAsWritten!.pid },
        note: 'as router-as-written, over gRPC (same router and host)',
      },
      'router-as-written-grpc-stream': {
        shot: (i: number) => asWrittenGrpc!.predictOnStream(TASK, corpus[i % corpus.length]!),
        pids: { router: p.routerAsWritten.pid, host: p.hostAsWritten!.pid },
        note: 'as router-as-written-grpc, every request on one PredictStream call (same router and host)',
      },
    }),
    ...(p.routerAsWrittenBaseline && {
      'router-as-written-baseline': {
        shot: (i: number) => postJson(`${p.routerAsWrittenBaseline!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerAsWrittenBaseline.pid, host: p.hostAsWrittenBaseline!.pid },
        note: 'as router-as-written, router and host built in the --baseline checkout',
      },
      'router-as-written-baseline-grpc': {
        shot: (i: number) => asWrittenBaselineGrpc!.predict(TASK, corpus[i % corpus.length]!),
        pids: { router: p.routerAsWrittenBaseline.pid, host: p.hostAsWrittenBaseline!.pid },
        note: 'as router-as-written-grpc, router and host built in the --baseline checkout',
      },
    }),
    ...(p.routerRedisCluster && {
      'router-redis-cluster': {
        shot: (i: number) => postJson(`${p.routerRedisCluster!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerRedisCluster.pid, host: p.hostMesh.pid },
        note: 'as router, on a Redis Cluster (3 primaries + 3 replicas on loopback)',
      },
    }),
    ...(p.routerTracing && {
      'router-tracing': {
        shot: (i: number) => postJson(`${p.routerTracing!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerTracing.pid, host: p.hostTracing!.pid },
        note: 'as router, router and its own host tracing every request (OTLP/HTTP protobuf to a sink that drops it)',
      },
    }),
    ...(p.routerAa && {
      'router-aa': {
        shot: (i: number) => postJson(`${p.routerAa!.url}/v1/predict`, body(i), KEY),
        pids: { router: p.routerAa.pid, host: p.hostMesh.pid },
        note: 'a second router of this build on the same host as router: the A/A pair',
      },
    }),
    'naive-peer': {
      shot: (i) => postJson(`${p.peer.url}/predict`, body(i)),
      pids: { peer: p.peer.pid },
      note: 'Fastify + ORT, session.run per request',
    },
  };
  const chosen = args.arms.filter((a) => arms[a]);
  const out: BenchPoint[] = [];
  try {
    if (warmupMs > 0) {
      log(`warm-up: ${warmupMs / 1000} s at c=1 per arm, not recorded`);
      for (const a of chosen) {
        const arm = arms[a]!;
        await measure(arm.shot, {
          concurrency: 1,
          warmup: 0,
          windowMs: warmupMs,
          minWindows: 1,
          maxWindows: 1,
          pids: arm.pids,
        });
      }
    }
    for (const c of args.concurrency) {
      const runs = new Map<string, PointResult[]>(chosen.map((a) => [a, []]));
      // A B C D, A B C D, ...: drift on the shared machine hits every arm alike.
      for (let rep = 0; rep < args.reps; rep++) {
        for (const a of chosen) {
          const arm = arms[a]!;
          runs
            .get(a)!
            .push(await measure(arm.shot, { ...windows(args), concurrency: c, pids: arm.pids }));
        }
      }
      for (const a of chosen) out.push(point(a, mix, c, median(runs.get(a)!), arms[a]!.note));
    }
  } finally {
    grpc.close();
    plainGrpc?.close();
    asWrittenGrpc?.close();
    asWrittenBaselineGrpc?.close();
  }
  return out;
}

/**
 * Fixed arrival rate at 70 % of the naive peer's best closed-loop throughput on this mix, the
 * same for each arm, so latency shows queueing instead of a closed loop's self-throttling.
 */
async function openLoopPoints(
  args: Args,
  corpus: string[],
  mix: TextMix,
  p: Procs,
  points: readonly BenchPoint[],
): Promise<BenchPoint[]> {
  const peerBest = Math.max(
    0,
    ...points.filter((x) => x.mix === mix && x.arm === 'naive-peer').map((x) => x.throughput),
  );
  const rate = Math.max(1, Math.round(peerBest * 0.7));
  const body = (i: number) => JSON.stringify({ task: TASK, text: corpus[i % corpus.length] });
  const grpc = new RouterGrpcClient(p.router.urls.grpc!, KEY);
  const arms: [string, (i: number) => Promise<void>, Record<string, number>][] = [
    [
      'router',
      (i) => postJson(`${p.router.url}/v1/predict`, body(i), KEY),
      { router: p.router.pid, host: p.hostMesh.pid },
    ],
    [
      'router-grpc',
      (i) => grpc.predict(TASK, corpus[i % corpus.length]!),
      { router: p.router.pid, host: p.hostMesh.pid },
    ],
    ['naive-peer', (i) => postJson(`${p.peer.url}/predict`, body(i)), { peer: p.peer.pid }],
  ];
  const out: BenchPoint[] = [];
  try {
    for (const [name, shot, pids] of arms) {
      const r = await openLoop(shot, {
        rate,
        warmupMs: 1000,
        durationMs: args.quick ? 5000 : 15000,
        pids,
        maxOutstanding: 512,
      });
      out.push(point(`open ${name}`, mix, rate, r, `open loop at ${rate}/s (c = arrival rate)`));
    }
  } finally {
    grpc.close();
  }
  return out;
}

function point(
  arm: string,
  mix: TextMix,
  concurrency: number,
  r: PointResult & { runs?: number[] },
  note: string,
): BenchPoint {
  log(
    `${mix.padEnd(5)} c=${String(concurrency).padEnd(3)} ${arm.padEnd(26)} ${r.throughput.toFixed(1).padStart(7)}/s ` +
      `p50 ${r.p50.toFixed(2)} p90 ${r.p90.toFixed(2)} p99 ${r.p99.toFixed(2)} ms errors ${r.errors}` +
      `${r.stable ? '' : ' (unstable)'} cpu/1k ${JSON.stringify(r.cpuPer1k)}${r.runs ? ` runs ${r.runs.join('/')}` : ''}`,
  );
  return { arm, mix, concurrency, note, ...r };
}

function log(msg: string): void {
  process.stdout.write(`bench: ${msg}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(
    `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
