/**
 * `npm run bench:router-env -- --env NAME=v1,v2[,...] [--points mixed:32,short:64] [--seconds 10]
 * [--rounds 3] [--models DIR]`: one router setting, several values, side by side in one run.
 *
 * One model host (as the router benchmark's mesh host) serves a router per value of `NAME`, all
 * started alike but for that variable, and the naive peer runs beside them. For each point
 * (text mix and concurrency) the arms take turns in closed loops of `--seconds`, `--rounds`
 * times; each round prints throughput and latency, overall and split by text length (the
 * corpus's long texts against its short ones), and how many of the slowest 1 % of requests were
 * long texts. The last lines give each arm's medians over the rounds. Prints to stdout.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildCorpus, LONG_TEXT_MIN_CHARS, type TextMix } from './bench-corpus';
import { latencyStats, medianOf, round } from './bench-measure';
import { parseCliArgs } from '../../scripts/cli-args';
import { postJson } from './http-post';
import {
  BENCH_MODEL,
  ROOT,
  startBenchHost,
  startBenchRouter,
  startNaivePeer,
  waitReady,
  type BenchProcess,
} from './bench-processes';
import { ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';

interface Args {
  variable: string;
  values: string[];
  points: { mix: TextMix; concurrency: number }[];
  seconds: number;
  rounds: number;
  models: string;
}

const MIXES: readonly TextMix[] = ['short', 'long', 'mixed'];

function parseArgs(argv: string[]): Args {
  const { values: v } = parseCliArgs({
    args: argv,
    options: {
      env: { type: 'string' },
      points: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      models: { type: 'string' },
    },
  });
  const env = /^([A-Z][A-Z0-9_]*)=(.+)$/.exec(v.env ?? '');
  if (!env)
    throw new Error('--env NAME=v1,v2,... is required (e.g. ROUTER_COALESCE_MAX_TOKENS=8192,512)');
  const points = (v.points ?? 'mixed:32,short:64,mixed:64').split(',').map((p) => {
    const [mix, c] = p.split(':');
    if (!MIXES.includes(mix as TextMix) || !(Number(c) >= 1)) {
      throw new Error(`--points: "${p}" is not mix:concurrency (mix one of ${MIXES.join(', ')})`);
    }
    return { mix: mix as TextMix, concurrency: Number(c) };
  });
  return {
    variable: env[1]!,
    values: env[2]!.split(','),
    points,
    seconds: Number(v.seconds ?? 10),
    rounds: Number(v.rounds ?? 3),
    models: v.models ?? join(ROOT, '.bench-models'),
  };
}

interface Sample {
  long: boolean;
  ms: number;
}

/**
 * `c` clients sending back to back for `ms`: each answer's latency, tagged by text length, and
 * how many requests failed (left out of the latencies).
 */
async function closedLoop(
  shot: (i: number) => Promise<void>,
  texts: readonly string[],
  c: number,
  ms: number,
): Promise<{ samples: Sample[]; errors: number }> {
  const samples: Sample[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < end) {
        const i = next++;
        const t0 = performance.now();
        try {
          await shot(i);
        } catch {
          errors++;
          continue;
        }
        const long = texts[i % texts.length]!.length >= LONG_TEXT_MIN_CHARS;
        samples.push({ long, ms: performance.now() - t0 });
      }
    }),
  );
  return { samples, errors };
}

interface RoundResult {
  perSecond: number;
  p50: number;
  p99: number;
  shortP50: number;
  shortP99: number;
  longP50: number;
  longP99: number;
  /** Long texts among the slowest 1 % of requests, and how many that 1 % is. */
  longInSlowest: number;
  slowest: number;
  errors: number;
}

function summarise(
  { samples, errors }: { samples: readonly Sample[]; errors: number },
  seconds: number,
): RoundResult {
  const of = (xs: readonly Sample[]) => latencyStats(xs.map((x) => x.ms));
  const all = of(samples);
  const short = of(samples.filter((x) => !x.long));
  const long = of(samples.filter((x) => x.long));
  const slowest = samples.filter((x) => x.ms >= all.p99);
  return {
    perSecond: round(samples.length / seconds, 1),
    p50: round(all.p50, 1),
    p99: round(all.p99, 1),
    shortP50: round(short.p50, 1),
    shortP99: round(short.p99, 1),
    longP50: round(long.p50, 1),
    longP99: round(long.p99, 1),
    longInSlowest: slowest.filter((x) => x.long).length,
    slowest: slowest.length,
    errors,
  };
}

function line(r: RoundResult): string {
  return (
    `${r.perSecond}/s p50 ${r.p50} p99 ${r.p99} ms | short p50 ${r.shortP50} p99 ${r.shortP99}` +
    ` | long p50 ${r.longP50} p99 ${r.longP99} | long in slowest 1 %: ${r.longInSlowest}/${r.slowest}` +
    ` | errors ${r.errors}`
  );
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  ensureBuiltAndGenerated(args.models, BENCH_MODEL.name);
  // As the router benchmark's mesh host: one 1-thread instance per core, dispatching when idle.
  const repo = repositoryVariant(
    args.models,
    BENCH_MODEL.name,
    {},
    { instances: availableParallelism() },
  );
  const procs: BenchProcess[] = [];
  const prefix = `bench-router-env-${process.pid}`;
  try {
    const host = await startBenchHost('model-host', repo.root, BENCH_MODEL.name);
    procs.push(host);
    await waitReady(`${host.urls.http}/healthz/ready`);
    const arms: { name: string; url: string; key?: string }[] = [];
    for (const value of args.values) {
      const router = await startBenchRouter(
        host,
        repo.root,
        procs,
        { keyPrefix: `${prefix}-${arms.length}` },
        { [args.variable]: value },
      );
      arms.push({
        name: `${args.variable}=${value}`,
        url: `${router.url}/v1/predict`,
        key: BENCH_MODEL.key,
      });
    }
    const peer = await startNaivePeer(args.models, procs);
    arms.push({ name: 'naive peer', url: `${peer.url}/predict` });
    console.log(
      `bench:router-env: ${arms.map((a) => a.name).join(' | ')}; ${args.rounds} rounds of ${args.seconds} s per point; ${availableParallelism()} cores`,
    );
    for (const { mix, concurrency } of args.points) {
      const texts = buildCorpus(mix, 2000);
      const shotOf = (arm: (typeof arms)[number]) => (i: number) =>
        postJson(
          arm.url,
          JSON.stringify({ task: BENCH_MODEL.task, text: texts[i % texts.length] }),
          arm.key,
        );
      // Warm every arm at this point's load before timing any.
      for (const arm of arms) await closedLoop(shotOf(arm), texts, concurrency, 2000);
      const results = new Map<string, RoundResult[]>(arms.map((a) => [a.name, []]));
      for (let r = 0; r < args.rounds; r++) {
        for (const arm of arms) {
          const loop = await closedLoop(shotOf(arm), texts, concurrency, args.seconds * 1000);
          const result = summarise(loop, args.seconds);
          results.get(arm.name)!.push(result);
          console.log(`${mix} c=${concurrency} round ${r + 1} ${arm.name}: ${line(result)}`);
        }
      }
      for (const [name, rs] of results) {
        const m = (k: keyof RoundResult) => medianOf(rs.map((x) => x[k]));
        const med: RoundResult = {
          perSecond: m('perSecond'),
          p50: m('p50'),
          p99: m('p99'),
          shortP50: m('shortP50'),
          shortP99: m('shortP99'),
          longP50: m('longP50'),
          longP99: m('longP99'),
          longInSlowest: m('longInSlowest'),
          slowest: m('slowest'),
          errors: m('errors'),
        };
        console.log(`median ${mix} c=${concurrency} ${name}: ${line(med)}`);
      }
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    repo.remove();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
