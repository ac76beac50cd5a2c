import { CHAOS_KEY, SMALL_KEY, TASK, hostPort } from '../cluster';
import { closeRawClients } from '../fuzz/grpc-raw.call';
import { hostFuzzTargets } from '../fuzz/host.fuzz-targets';
import { runFuzz, type ApiFuzzResult } from '../fuzz/fuzz.runner';
import { routerFuzzTargets } from '../fuzz/router.fuzz-targets';
import { verdict, type ChaosScenario, type Check } from '../scenario';

/**
 * Scenario 6b: property-based fuzzing of every public inference API — the router's HTTP
 * predict and batch, its gRPC Predict, PredictBatch and PredictStream (a few messages per
 * stream), the host's KServe v2 HTTP infer and gRPC ModelInfer. Inputs mix well-formed-ish requests with wild ones (wrong types, huge
 * numbers, any Unicode, missing fields, wrong shapes and datatypes, binary junk); every answer
 * must be a 2xx or a documented 4xx in the API's error shape (gRPC: a client-error status with
 * a message), and both processes must still be alive and ready at the end.
 */

/** The app bugs fuzzing found, each fixed in the app with a test. */
export const FUZZ_FIXES = [
  'gRPC requests whose bytes are not the method message answered INTERNAL (grpc-js "Error deserializing request"), router and host: now INVALID_ARGUMENT (router: with x-mesh-error-code)',
];

export interface FuzzRun {
  results: ApiFuzzResult[];
  checks: Check[];
  seed: number;
}

/** Fuzzes a running router + host pair; shared by the chaos runner and the e2e suite. */
export async function fuzzMesh(opts: {
  routerHttp: string;
  routerGrpc: string;
  hostHttp: string;
  hostGrpc: string;
  runs: number;
  seed: number;
  tasks: readonly string[];
  key: string;
  otherKey: string;
  /** Liveness after the run: each must resolve true. */
  alive: Record<string, () => Promise<boolean>>;
}): Promise<FuzzRun> {
  const targets = [
    ...routerFuzzTargets({
      http: opts.routerHttp,
      grpc: hostPort(opts.routerGrpc),
      key: opts.key,
      otherKey: opts.otherKey,
      tasks: opts.tasks,
    }),
    ...hostFuzzTargets({ http: opts.hostHttp, grpc: hostPort(opts.hostGrpc) }),
  ];
  let results: ApiFuzzResult[];
  try {
    results = await runFuzz(targets, { runs: opts.runs, seed: opts.seed, concurrency: 4 });
  } finally {
    closeRawClients();
  }
  const checks: Check[] = results.map((r) => ({
    name: `${r.api}: ${r.sent} requests, every answer 2xx or a documented 4xx`,
    ok: r.sent === opts.runs && r.violations === 0,
    detail: r.findings.map((f) => `${f.problem} ← ${f.input}`).join(' | '),
  }));
  for (const [name, probe] of Object.entries(opts.alive)) {
    const ok = await probe().catch(() => false);
    checks.push({ name: `${name} alive and ready after fuzzing`, ok });
  }
  return { results, checks, seed: opts.seed };
}

async function ready(url: string): Promise<boolean> {
  return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status === 200;
}

export const fuzzScenario: ChaosScenario = {
  id: 'fuzz',
  title: 'Property-based fuzzing of every inference API',
  async run(ctx) {
    const runs = ctx.quick ? 1000 : 10_000;
    const seed = Number(process.env.CHAOS_FUZZ_SEED ?? Date.now() % 2 ** 31);
    const cluster = ctx.cluster();
    await cluster.startRedis();
    const host = await cluster.startHost();
    const router = await cluster.startRouter();
    ctx.log(`fuzzing ${runs} requests per API, seed ${seed}`);
    const run = await fuzzMesh({
      routerHttp: router.urls.http!,
      routerGrpc: router.urls.grpc!,
      hostHttp: host.urls.http!,
      hostGrpc: host.urls.grpc!,
      runs,
      seed,
      tasks: [TASK, 'sentiment'],
      key: CHAOS_KEY,
      otherKey: SMALL_KEY,
      alive: {
        router: async () => router.running() && (await ready(`${router.urls.http}/healthz/ready`)),
        host: async () => host.running() && (await ready(`${host.urls.http}/v2/health/ready`)),
      },
    });
    return fuzzResult(run, runs);
  },
};

/** The report row of a fuzz run. */
export function fuzzResult(run: FuzzRun, runs: number) {
  const failedDetail: Record<string, number> = {};
  const figures: Record<string, number | string> = { seed: run.seed, runsPerApi: runs };
  for (const r of run.results) {
    for (const [outcome, n] of Object.entries(r.violationOutcomes)) {
      failedDetail[`${r.api} ${outcome}`] = n;
    }
    const classes = Object.entries(r.outcomes).reduce<Record<string, number>>((acc, [k, n]) => {
      const cls = /^(\d)\d\d/.exec(k)?.[1];
      // A PredictStream case is one stream: OK, or OK with some requests answered by an error.
      const key = cls
        ? `${cls}xx`
        : k === 'grpc OK' || k === 'stream OK'
          ? 'OK'
          : k === 'stream OK, errors in-stream'
            ? 'OK with errors in-stream'
            : 'grpc error';
      acc[key] = (acc[key] ?? 0) + n;
      return acc;
    }, {});
    figures[r.api] = Object.entries(classes)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    figures[`${r.api} rps`] = Math.round((r.sent / Math.max(1, r.durationMs)) * 1000);
  }
  const v = verdict(run.checks);
  return {
    id: fuzzScenario.id,
    title: fuzzScenario.title,
    load: `${runs} fuzzed requests per API × ${run.results.length} APIs, 4 in flight per API`,
    faults:
      'wild and malformed inputs (wrong types, huge numbers, Unicode, wrong shapes, junk bytes)',
    requests: {
      sent: run.results.reduce((a, r) => a + r.sent, 0),
      failed: run.results.reduce((a, r) => a + r.violations, 0),
      failedDetail,
    },
    dataLost: 0,
    fixes: FUZZ_FIXES,
    figures,
    ...v,
  };
}
