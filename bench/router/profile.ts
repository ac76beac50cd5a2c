/**
 * `npm run bench:profile [-- --seconds 15 --concurrency 1,32 --mix short --as-written
 * --predict-stream --no-profile]`: where the router and the model host spend CPU. For each
 * concurrency it starts a fresh host and router with `node --cpu-prof` (every thread writes a
 * profile, the host's ORT worker included), drives a closed loop of HTTP predicts, stops both with SIGTERM so the profiles are written, and prints
 * the top self-time frames and packages of each thread to docs/benchmarks/router-profile.md.
 * Native time inside a call (ORT's `run`, socket writes) is charged to the JS frame that made it.
 * `--predict-stream` sends every request on one gRPC PredictStream call instead of HTTP.
 * `--no-profile` runs the same loop without the profiler and prints only the time breakdown, to
 * stdout: the profiler's sampling slows every thread, so its breakdown overstates each part.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCorpus, type TextMix } from './bench-corpus';
import { parseCliArgs } from '../../scripts/cli-args';
import { measure, metricSums } from './bench-measure';
import { postJson } from './http-post';
import { RouterGrpcClient } from './router-grpc.client';
import { BENCH_MODEL, startBenchMesh, ROOT, type BenchProcess } from './bench-processes';
import { asUsersWriteIt, ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';
import { machineLine } from '../host/host-bench.report';

const { name: MODEL, task: TASK, key: KEY } = BENCH_MODEL;

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  /** Monotonic clock, µs (CLOCK_MONOTONIC on Linux, as process.hrtime). */
  startTime: number;
  timeDeltas: number[];
}

/** A window of the monotonic clock, µs: only samples inside it are counted. */
export interface SampleWindow {
  fromUs: number;
  toUs: number;
}

export interface FrameShare {
  frame: string;
  share: number;
}

/**
 * Shares of busy samples (idle excluded) by self frame and by package, biggest first; with a
 * window, only the samples taken inside it (start-up and shutdown left out).
 */
export function summariseProfile(
  profile: CpuProfile,
  window?: SampleWindow,
  top = 12,
): {
  busySamples: number;
  idleShare: number;
  frames: FrameShare[];
  packages: FrameShare[];
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const frames = new Map<string, number>();
  const packages = new Map<string, number>();
  let idle = 0;
  let counted = 0;
  let at = profile.startTime;
  for (const [k, id] of profile.samples.entries()) {
    at += profile.timeDeltas[k] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const node = byId.get(id);
    if (!node) continue;
    counted += 1;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += 1;
      continue;
    }
    const where = packageOf(url);
    const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    frames.set(name, (frames.get(name) ?? 0) + 1);
    packages.set(where, (packages.get(where) ?? 0) + 1);
  }
  const busy = counted - idle;
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, n]) => ({ frame, share: Math.round((n / Math.max(1, busy)) * 1000) / 10 }));
  return {
    busySamples: busy,
    idleShare: Math.round((idle / Math.max(1, counted)) * 1000) / 10,
    frames: rank(frames),
    packages: rank(packages),
  };
}

/** `node_modules/<pkg>`, the mesh's own app or lib, `node:<internal>`, or `(native)`. */
export function packageOf(url: string): string {
  if (!url) return '(native)';
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  const own = /\/(apps|libs|bench)\/([^/]+)\//.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-1)[0]!;
}

const HOST_COUNTERS = [
  'nv_inference_request_success',
  'nv_inference_request_duration_us',
  'nv_inference_queue_duration_us',
  'nv_inference_compute_input_duration_us',
  'nv_inference_compute_infer_duration_us',
  'nv_inference_compute_output_duration_us',
] as const;

/** The host's Triton counters for one model, summed over versions. */
export function hostCounters(text: string, model: string): Record<string, number> {
  const sums = metricSums(text, model);
  return Object.fromEntries(HOST_COUNTERS.map((c) => [c, sums.get(c) ?? 0]));
}

async function scrape(url: string): Promise<Record<string, number>> {
  return hostCounters(await (await fetch(`${url}/metrics`)).text(), MODEL);
}

/**
 * Where a request's time goes, in ms per request over the window: the client's mean latency
 * (Little's law on the closed loop), the host's own request duration (receipt to answer) and
 * its parts; the rest is the router and the two loopback hops.
 */
function breakdown(
  before: Record<string, number>,
  after: Record<string, number>,
  concurrency: number,
  throughput: number,
): string {
  const d = (k: (typeof HOST_COUNTERS)[number]) => after[k]! - before[k]!;
  const n = Math.max(1, d('nv_inference_request_success'));
  const ms = (k: (typeof HOST_COUNTERS)[number]) => Math.round((d(k) / n / 1000) * 100) / 100;
  const client = Math.round((concurrency / throughput) * 1000 * 100) / 100;
  const host = ms('nv_inference_request_duration_us');
  return [
    '| per request, mean ms | client | host request | host queue | host input | ORT run | host output | router + hops |',
    '|---|---|---|---|---|---|---|---|',
    `| c=${concurrency} | ${client} | ${host} | ${ms('nv_inference_queue_duration_us')} | ${ms('nv_inference_compute_input_duration_us')} | ${ms('nv_inference_compute_infer_duration_us')} | ${ms('nv_inference_compute_output_duration_us')} | ${Math.round((client - host) * 100) / 100} |`,
  ].join('\n');
}

/** The command line (strict: an unknown flag or a missing value is refused, naming it). */
function readArgs(argv: string[]) {
  return parseCliArgs({
    args: argv,
    options: {
      concurrency: { type: 'string' },
      mix: { type: 'string' },
      models: { type: 'string' },
      out: { type: 'string' },
      seconds: { type: 'string' },
      'as-written': { type: 'boolean' },
      'no-profile': { type: 'boolean' },
      'predict-stream': { type: 'boolean' },
    },
  }).values;
}

/**
 * The load each run gets before it is measured. On a fresh router, V8 was still compiling the
 * request path several seconds into a c=1 loop: after a 50-request warm-up the router spent 1.97
 * CPU-ms per request, after 1,000 requests 1.29.
 */
const WARM_UP = { warmup: 0, windowMs: 6000, minWindows: 1, maxWindows: 1 } as const;

/** One concurrency level's run: which config, with the profiler or not, over which call. */
interface ProfileRun {
  /** The config as Triton users write it instead of the tuned one. */
  asWritten: boolean;
  /** Start both processes under `--cpu-prof` (off: only the time split is measured). */
  profile: boolean;
  /** Every request on one PredictStream call instead of an HTTP POST each. */
  onStream: boolean;
}

async function profileAt(
  c: number,
  seconds: number,
  corpus: string[],
  models: string,
  dir: string,
  how: ProfileRun,
): Promise<string[]> {
  const { asWritten, profile, onStream } = how;
  // As the router benchmark's mesh host (one 1-thread instance per core), or with the config as
  // Triton users write it (one instance, a 2 ms queue delay, no mesh parameters).
  const repo = asWritten
    ? repositoryVariant(models, MODEL, {}, { rewrite: asUsersWriteIt })
    : repositoryVariant(models, MODEL, {}, { instances: availableParallelism() });
  const procs: BenchProcess[] = [];
  let grpc: RouterGrpcClient | undefined;
  const profiled = (name: string) =>
    profile ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, `c${c}`, name)}`] : [];
  try {
    const { host, router } = await startBenchMesh(repo.root, procs, {
      keyPrefix: `bench-profile-${process.pid}-c${c}`,
      hostNodeArgs: profiled('host'),
      routerNodeArgs: profiled('router'),
    });
    if (onStream) grpc = new RouterGrpcClient(router.urls.grpc!, KEY);
    const client = grpc;
    const shot = (i: number) =>
      client
        ? client.predictOnStream(TASK, corpus[i % corpus.length]!)
        : postJson(
            `${router.url}/v1/predict`,
            JSON.stringify({ task: TASK, text: corpus[i % corpus.length] }),
            KEY,
          );
    // Load before the window until V8 has compiled the request path; the window, the host's
    // counters and the profiles' samples all start after it.
    await measure(shot, { ...WARM_UP, concurrency: c, pids: {} });
    const before = await scrape(host.urls.metrics!);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    const r = await measure(shot, {
      concurrency: c,
      warmup: 50,
      windowMs: seconds * 1000,
      minWindows: 1,
      maxWindows: 1,
      pids: { router: router.pid, host: host.pid },
    });
    const after = await scrape(host.urls.metrics!);
    windows.set(c, { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) });
    return [
      `c=${c}: ${r.throughput}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU-ms per request ${JSON.stringify(r.cpuPer1k)}`,
      '',
      breakdown(before, after, c, r.throughput),
    ];
  } finally {
    grpc?.close();
    for (const p of procs.reverse()) await p.stop('SIGTERM');
    repo.remove();
  }
}

/** The measured window of each concurrency level, to cut start-up out of the profiles. */
const windows = new Map<number, SampleWindow>();

function render(dir: string, c: number): string[] {
  const lines: string[] = [];
  for (const app of ['router', 'host']) {
    const at = join(dir, `c${c}`, app);
    const files = readdirSync(at)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort();
    for (const file of files) {
      const s = summariseProfile(
        JSON.parse(readFileSync(join(at, file), 'utf8')) as CpuProfile,
        windows.get(c),
      );
      // One profile per thread: the main thread's is written first, then worker threads'.
      lines.push(
        '',
        `### ${app}, c=${c}, ${file} (${s.busySamples} busy samples, idle ${s.idleShare} %)`,
        '',
        '| top self frames (share of busy) | % | packages | % |',
        '|---|---|---|---|',
        ...s.frames.map(
          (f, k) =>
            `| \`${f.frame}\` | ${f.share} | ${s.packages[k] ? `${s.packages[k].frame} | ${s.packages[k].share}` : ' | '} |`,
        ),
      );
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const flags = readArgs(process.argv.slice(2));
  const seconds = Number(flags.seconds ?? 15);
  const mix = (flags.mix ?? 'short') as TextMix;
  const levels = (flags.concurrency ?? '1,32').split(',').map(Number);
  const models = flags.models ?? join(ROOT, '.bench-models');
  const out = flags.out ?? join(ROOT, 'docs', 'benchmarks');
  const asWritten = flags['as-written'] ?? false;
  const onStream = flags['predict-stream'] ?? false;
  ensureBuiltAndGenerated(models, MODEL);
  const corpus = buildCorpus(mix, 2000);
  if (flags['no-profile']) {
    for (const c of levels) {
      const at = await profileAt(c, seconds, corpus, models, '', {
        asWritten,
        profile: false,
        onStream,
      });
      process.stdout.write(`${at.join('\n')}\n\n`);
    }
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mesh-profile-'));
  const lines = [
    '# Router and host CPU profiles',
    '',
    `Machine: ${machineLine()}; load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} before.`,
    '',
    `\`npm run bench:profile -- --seconds ${seconds} --mix ${mix} --concurrency ${levels.join(',')}${asWritten ? ' --as-written' : ''}${onStream ? ' --predict-stream' : ''}\`, ${new Date().toISOString()}. Closed-loop ${onStream ? 'PredictStream' : 'HTTP'} predicts on ${MODEL} (small bench model${asWritten ? ', config as Triton users write it: one instance, max_queue_delay 2 ms, no mesh parameters' : ''}). Shares are of busy samples of each thread taken during the measured window (warm-up, start-up and shutdown left out); native work (ORT's run, socket writes) counts to the JS frame that called it. Raw profiles: ${dir}.`,
  ];
  for (const c of levels) {
    process.stderr.write(`bench:profile: c=${c}, ${seconds} s\n`);
    lines.push(
      '',
      `## c=${c}`,
      '',
      ...(await profileAt(c, seconds, corpus, models, dir, { asWritten, profile: true, onStream })),
    );
    lines.push(...render(dir, c));
  }
  mkdirSync(out, { recursive: true });
  const file = join(
    out,
    `router-profile${asWritten ? '-as-written' : ''}${onStream ? '-predict-stream' : ''}.md`,
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  process.stderr.write(`bench:profile: wrote ${file}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
