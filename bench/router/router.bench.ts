/**
 * `npm run bench [-- --quick]`: the router benchmark of docs/benchmarks/router.{json,md}.
 * Arms, side by side in one run on the same small model and thread budget: raw in-process ORT
 * (the ceiling), client → router → model host (HTTP), and a naive single-process peer.
 * Requires `npm run build` and `npm run models -- --size small --out .bench-models`.
 */
import { cpus } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedisClient } from '@mesh/config';
import { buildCorpus, lengthHistogram, type TextMix } from './bench-corpus';
import { measure, type MeasureOptions, type PointResult } from './bench-measure';
import { loadBenchModel } from './bench-model.loader';
import { ROOT, startProcess, waitReady, type BenchProcess } from './bench-processes';
import { RawOrtArm } from './raw-ort.arm';
import { headline, renderMarkdown, type BenchReport } from './bench-report';

const INTRA = 2;
const INTER = 1;
const MODEL = 'intent-zh';
const VERSION = 2;
const TASK = 'intent';
const KEY = 'acme-demo-key';

interface Args {
  quick: boolean;
  models: string;
  out: string;
  concurrency: number[];
  mixes: TextMix[];
}

function parseArgs(argv: string[]): Args {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    quick: argv.includes('--quick'),
    models: get('--models') ?? join(ROOT, '.bench-models'),
    out: get('--out') ?? join(ROOT, 'docs', 'benchmarks'),
    concurrency: (get('--concurrency') ?? '1,8,32,64').split(',').map(Number),
    mixes: (get('--mixes') ?? 'short,mixed').split(',') as TextMix[],
  };
}

function machine(): BenchReport['machine'] {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const flags = /^flags\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.split(' ') ?? [];
  const ortVersion = (
    JSON.parse(
      readFileSync(join(ROOT, 'node_modules', 'onnxruntime-node', 'package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    flags: flags.filter((f) =>
      /^(avx|avx2|avx512f|avx512_vnni|avx_vnni|fma|f16c|sse4_2|amx\w*)$/.test(f),
    ),
    node: process.version,
    onnxruntime: ortVersion,
    threads: `ORT intra-op ${INTRA} / inter-op ${INTER} in every arm (host: 1 instance)`,
  };
}

/** `--render <router.json>`: recompute the headline and rewrite the Markdown beside it. */
function rerender(file: string): void {
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  report.headline = headline(report.points);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(file.replace(/\.json$/, '.md'), renderMarkdown(report));
  log(`re-rendered ${file}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const render = argv.indexOf('--render');
  if (render >= 0)
    return rerender(argv[render + 1] ?? join(ROOT, 'docs', 'benchmarks', 'router.json'));
  const args = parseArgs(argv);
  const started = Date.now();
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
  log(`corpus token lengths: ${JSON.stringify(histograms)}`);
  const prefix = `bench-router-${process.pid}`;
  const procs: BenchProcess[] = [];
  try {
    const host = await startProcess(
      'model-host',
      'dist/apps/model-host/src/main.js',
      ['--model-repository', args.models, '--model-control-mode=explicit', `--load-model=${MODEL}`],
      {
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
        ORT_INTRA_OP_THREADS: String(INTRA),
        ORT_INTER_OP_THREADS: String(INTER),
      },
      ['http', 'grpc', 'metrics'],
    );
    procs.push(host);
    await waitReady(`${host.urls.http}/healthz/ready`);
    const router = await startProcess(
      'router',
      'dist/apps/router/src/main.js',
      [],
      {
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        REDIS_KEY_PREFIX: prefix,
        MODEL_REPOSITORY: args.models,
        KSERVE_ENDPOINTS: host.urls.grpc!.replace(/^grpc:\/\//, ''),
      },
      ['http', 'grpc'],
    );
    procs.push(router);
    await waitReady(`${router.url}/healthz/ready`);
    const peer = await startProcess(
      'naive-peer',
      'dist/bench/router/naive-peer.server.js',
      [args.models, MODEL, String(VERSION), String(INTRA), String(INTER)],
      {},
      ['http'],
    );
    procs.push(peer);
    const raw = await RawOrtArm.create(model, INTRA, INTER);
    const results = await runPoints(args, corpora, model, raw, router, host, peer);
    await raw.close();
    const report: BenchReport = {
      name: 'router',
      date: new Date().toISOString(),
      quick: args.quick,
      machine: machine(),
      model: `${MODEL} v${VERSION} (small: 6 layers, hidden 384), pipeline ${model.pre.pipeline.id}, maxLength ${model.pre.manifest.maxLength}`,
      corpus: histograms,
      points: results,
      headline: headline(results),
      durationSeconds: Math.round((Date.now() - started) / 1000),
    };
    mkdirSync(args.out, { recursive: true });
    writeFileSync(join(args.out, 'router.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(args.out, 'router.md'), renderMarkdown(report));
    log(`wrote ${join(args.out, 'router.{json,md}')}`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    const redis = createRedisClient('redis://127.0.0.1:6379', 'bench');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  }
}

async function runPoints(
  args: Args,
  corpora: Record<TextMix, string[]>,
  model: Awaited<ReturnType<typeof loadBenchModel>>,
  raw: RawOrtArm,
  router: BenchProcess,
  host: BenchProcess,
  peer: BenchProcess,
): Promise<BenchReport['points']> {
  const base: Omit<MeasureOptions, 'concurrency' | 'pids'> = args.quick
    ? { warmup: 50, windowMs: 2000, minWindows: 1, maxWindows: 1 }
    : { warmup: 200, windowMs: 5000, minWindows: 3, maxWindows: 6 };
  const points: BenchReport['points'] = [];
  for (const mix of args.mixes) {
    const corpus = corpora[mix];
    const body = (i: number) => JSON.stringify({ task: TASK, text: corpus[i % corpus.length] });
    for (const c of args.concurrency) {
      // Arms interleaved per point so drift on the shared machine hits all of them alike.
      const batch = Math.min(c, 64);
      const feeds = RawOrtArm.prepare(model, corpus, batch);
      const rawResult = await measure((i) => raw.run(feeds[i % feeds.length]!), {
        ...base,
        concurrency: 1,
        pids: {},
        itemsPerShot: batch,
        warmup: Math.max(5, Math.ceil(base.warmup / batch)),
      });
      points.push(point('raw-ort', mix, c, rawResult, `batch ${batch}, pre-tokenized`));
      const routerResult = await measure((i) => post(`${router.url}/v1/predict`, body(i), KEY), {
        ...base,
        concurrency: c,
        pids: { router: router.pid, host: host.pid },
      });
      points.push(point('router', mix, c, routerResult, 'HTTP → router → KServe gRPC → host'));
      const peerResult = await measure((i) => post(`${peer.url}/predict`, body(i)), {
        ...base,
        concurrency: c,
        pids: { peer: peer.pid },
      });
      points.push(
        point('naive-peer', mix, c, peerResult, 'Fastify + ORT, session.run per request'),
      );
    }
  }
  return points;
}

function point(arm: string, mix: TextMix, concurrency: number, r: PointResult, note: string) {
  log(
    `${mix.padEnd(5)} c=${String(concurrency).padEnd(2)} ${arm.padEnd(10)} ${r.throughput.toFixed(1).padStart(7)}/s ` +
      `p50 ${r.p50.toFixed(2)} p90 ${r.p90.toFixed(2)} p99 ${r.p99.toFixed(2)} ms errors ${r.errors}${r.stable ? '' : ' (unstable)'}`,
  );
  return { arm, mix, concurrency, note, ...r };
}

async function post(url: string, body: string, key?: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
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
