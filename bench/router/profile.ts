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
import {
  costByMeshFrame,
  summariseProfile,
  type CpuProfile,
  type SampleWindow,
} from './cpu-profile.summary';

const { name: MODEL, task: TASK, key: KEY } = BENCH_MODEL;

const HOST_COUNTERS = [
  'nv_inference_request_success',
  'nv_inference_request_duration_us',
  'nv_inference_queue_duration_us',
  'nv_inference_compute_input_duration_us',
  'nv_inference_compute_infer_duration_us',
  'nv_inference_compute_output_duration_us',
  'nv_inference_count',
  'nv_inference_exec_count',
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
 * its parts; the rest is the router and the two loopback hops. The host's times are per host
 * request, which every predict it carries spends alike; the last two columns say how many
 * predicts the router coalesced into one host request and the host batched into one run.
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
  // A host request is one router call, which may carry several coalesced predicts; a run is
  // one session.run, which may batch several calls.
  const per = (k: (typeof HOST_COUNTERS)[number]) =>
    Math.round((d('nv_inference_count') / Math.max(1, d(k))) * 10) / 10;
  return [
    '| mean ms | client, per predict | host request | host queue | host input | ORT run | host output | router + hops | items per host request | items per run |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| c=${concurrency} | ${client} | ${host} | ${ms('nv_inference_queue_duration_us')} | ${ms('nv_inference_compute_input_duration_us')} | ${ms('nv_inference_compute_infer_duration_us')} | ${ms('nv_inference_compute_output_duration_us')} | ${Math.round((client - host) * 100) / 100} | ${per('nv_inference_request_success')} | ${per('nv_inference_exec_count')} |`,
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
    // No warm-up of its own (the load above was one), so the window's requests are all counted.
    const r = await measure(shot, {
      concurrency: c,
      warmup: 0,
      windowMs: seconds * 1000,
      minWindows: 1,
      maxWindows: 1,
      pids: { router: router.pid, host: host.pid },
    });
    const after = await scrape(host.urls.metrics!);
    windows.set(c, {
      fromUs,
      toUs: Number(process.hrtime.bigint() / 1000n),
      requests: r.requests,
    });
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

/**
 * The measured window of each concurrency level, to cut start-up out of the profiles, and the
 * requests answered in it.
 */
const windows = new Map<number, SampleWindow & { requests: number }>();

function render(dir: string, c: number): string[] {
  const lines: string[] = [];
  for (const app of ['router', 'host']) {
    const at = join(dir, `c${c}`, app);
    const files = readdirSync(at)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort();
    for (const [index, file] of files.entries()) {
      const profile = JSON.parse(readFileSync(join(at, file), 'utf8')) as CpuProfile;
      const s = summariseProfile(profile, windows.get(c));
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
      if (app === 'router' && index === 0) lines.push(...meshFrameCosts(profile, c));
    }
  }
  return lines;
}

/** The router main thread's busy time per request, by the mesh function that caused it. */
function meshFrameCosts(profile: CpuProfile, c: number): string[] {
  const w = windows.get(c);
  const cost = costByMeshFrame(profile, w?.requests ?? 0, w);
  return [
    '',
    `Busy ${cost.busyMsPerRequest} ms per request (profiled), charged to the innermost mesh frame on each sample's stack (library, Node and native work under it included):`,
    '',
    '| mesh frame | ms per request |',
    '|---|---|',
    ...cost.frames.map((f) => `| \`${f.frame}\` | ${f.msPerRequest} |`),
  ];
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
