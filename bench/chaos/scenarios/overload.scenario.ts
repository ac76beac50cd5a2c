import { CHAOS_KEY, SMALL_KEY, sleep, type Cluster } from '../cluster';
import {
  closedLoop,
  grpcPredict,
  httpPredict,
  openLoop,
  percentile,
  Recorder,
  type Outcome,
  after,
} from '../load';
import { metricSum, Sampler } from '../metrics';
import { verdict, type ChaosScenario, type Check } from '../scenario';

/**
 * Scenario 5: measure saturation (closed loop, enough callers to keep the host busy), then
 * offer twice that rate as an open loop, half over HTTP and half over the router's gRPC, as a
 * tenant whose in-flight cap (16 per router) is the admission bound. Refusals must be only
 * `429` with `Retry-After` (HTTP) and RESOURCE_EXHAUSTED / UNAVAILABLE with
 * `grpc-retry-pushback-ms` (gRPC); queues stay bounded (the host's pending requests never pass
 * the cap); admitted requests' p99 is reported; no process passes its memory budget.
 */

/** The tenant `small`'s maxInFlight in the chaos seed. */
export const ADMISSION_CAP = 16;

/**
 * Memory budgets: the Kubernetes limits in deploy/k8s (router 1 GiB, worker 1 GiB, coordinator
 * 512 MiB, Redis 1 GiB; the model host's CPU overlay 4 GiB).
 */
export const RSS_BUDGET_MIB: Record<string, number> = {
  router: 1024,
  host: 4096,
  worker: 1024,
  coord: 512,
  redis: 1024,
};

export function budgetOf(proc: string): number {
  const key = Object.keys(RSS_BUDGET_MIB).find((k) => proc.startsWith(k));
  return key ? RSS_BUDGET_MIB[key]! : 1024;
}

/** Saturated throughput of one router on one host, answered requests per second. */
export async function measureSaturation(
  url: string,
  ms: number,
  signal: AbortSignal,
): Promise<{ rps: number; p99: number }> {
  const rec = new Recorder();
  const stop = after(ms, signal);
  await closedLoop({
    send: httpPredict(() => [url], CHAOS_KEY),
    targets: 1,
    rec,
    signal: stop,
    concurrency: 32,
  });
  const ok = rec.outcomes.filter((o) => o.ok);
  return {
    rps: Math.round((ok.length / rec.now()) * 1000),
    p99: Math.round(
      percentile(
        ok.map((o) => o.ms),
        99,
      ),
    ),
  };
}

/** The host's and router's queue gauges read while sampling. */
export const QUEUE_GAUGES = {
  pending: (t: string) => metricSum(t, 'nv_inference_pending_request_count'),
  loopP99ms: (t: string) => metricSum(t, 'nodejs_eventloop_lag_p99_seconds') * 1000,
};

export async function startOverloadCluster(cluster: Cluster): Promise<string> {
  await cluster.startRedis();
  await cluster.startHost({ models: ['question-type-zh'] });
  const router = await cluster.startRouter();
  return router.urls.http!;
}

const HTTP_REFUSALS = new Set(['429 TOO_MANY_IN_FLIGHT', '429 RATE_LIMITED']);
const GRPC_REFUSALS = /^grpc (RESOURCE_EXHAUSTED|UNAVAILABLE)( |$)/;

/**
 * Arrivals the open loop never sent because its own outstanding-request guard was full: at twice
 * saturation on a shared machine the generator can fall behind reading answers. They carry no
 * answer, so they say nothing about how the mesh refused; they are counted apart.
 */
export function isGeneratorDrop(o: Outcome): boolean {
  return o.cls === 'client-dropped';
}

/** Failures that are not a documented refusal, or refusals that do not say when to retry. */
export function badRefusals(outcomes: readonly Outcome[]): Record<string, number> {
  const bad: Record<string, number> = {};
  for (const o of outcomes) {
    if (o.ok) continue;
    let why: string | undefined;
    if (o.cls.startsWith('grpc')) {
      if (!GRPC_REFUSALS.test(o.cls)) why = o.cls;
      else if (o.pushbackMs === undefined) why = `${o.cls} without grpc-retry-pushback-ms`;
    } else if (!HTTP_REFUSALS.has(o.cls)) why = o.cls;
    else if (o.retryAfter === undefined) why = `${o.cls} without Retry-After`;
    if (why) bad[why] = (bad[why] ?? 0) + 1;
  }
  return bad;
}

export const overloadScenario: ChaosScenario = {
  id: 'overload',
  title: 'Overload at 2× saturation',
  budgetMs: { quick: 90_000, full: 180_000 },
  async run(ctx) {
    const cluster = ctx.cluster();
    const url = await startOverloadCluster(cluster);
    const router = cluster.routers[0]!;
    await sleep(500);
    const sat = await measureSaturation(url, ctx.quick ? 4000 : 10_000, ctx.signal);
    ctx.shared.set('saturationRps', sat.rps);
    ctx.log(`saturation ≈ ${sat.rps} rps (closed loop c=32, p99 ${sat.p99} ms)`);

    const offered = sat.rps * 2;
    const sampler = new Sampler(cluster, QUEUE_GAUGES, 250).start();
    const rec = new Recorder();
    const stop = after(ctx.quick ? 6000 : 20_000, ctx.signal);
    const grpc = grpcPredict(() => [router.urls.grpc!], SMALL_KEY);
    await Promise.all([
      openLoop({
        send: httpPredict(() => [url], SMALL_KEY),
        targets: 1,
        rec,
        signal: stop,
        rps: offered / 2,
      }),
      openLoop({ send: grpc, targets: 1, rec, signal: stop, rps: offered / 2 }),
    ]);
    grpc.close();
    await sampler.stop();
    ctx.log(`outcomes: ${JSON.stringify(rec.counts())}`);

    const dropped = rec.outcomes.filter(isGeneratorDrop).length;
    const answered = rec.outcomes.filter((o) => !isGeneratorDrop(o));
    const admitted = answered.filter((o) => o.ok);
    const refused = answered.filter((o) => !o.ok);
    const bad = badRefusals(answered);
    const maxPending = Math.max(0, ...Object.values(sampler.maxGauge('pending')));
    const rss = sampler.maxRss();
    const overBudget = Object.entries(rss).filter(([p, v]) => v > budgetOf(p));
    const p99 = Math.round(
      percentile(
        admitted.map((o) => o.ms),
        99,
      ),
    );
    const goodput = Math.round((admitted.length / rec.now()) * 1000);
    const checks: Check[] = [
      { name: 'overload happened (some requests refused)', ok: refused.length > 0 },
      { name: 'requests were admitted and answered', ok: admitted.length > 0 },
      {
        name: 'only 429 + Retry-After (HTTP) and RESOURCE_EXHAUSTED/UNAVAILABLE + grpc-retry-pushback-ms (gRPC)',
        ok: Object.keys(bad).length === 0,
        detail: JSON.stringify(bad),
      },
      {
        name: `bounded queue: the host's pending requests never exceed the admission cap (${ADMISSION_CAP})`,
        ok: maxPending <= ADMISSION_CAP,
        detail: `max ${maxPending}`,
      },
      {
        name: 'no process over its memory budget',
        ok: overBudget.length === 0,
        detail: JSON.stringify(overBudget),
      },
    ];
    return {
      id: this.id,
      title: this.title,
      load: `open loop ${offered} rps (2× the measured ${sat.rps} rps), half HTTP half gRPC, tenant cap ${ADMISSION_CAP} in flight`,
      faults: 'offered load twice the saturated throughput',
      requests: {
        sent: answered.length,
        failed: Object.values(bad).reduce((a, b) => a + b, 0),
        failedDetail: rec.counts(refused),
      },
      dataLost: 0,
      fixes: [
        'router gRPC: RESOURCE_EXHAUSTED refusals (rate limit, in-flight cap) now carry grpc-retry-pushback-ms beside retry-after, so gRPC retry policies back off instead of retrying at once',
      ],
      figures: {
        saturationRps: sat.rps,
        saturationP99Ms: sat.p99,
        offeredRps: offered,
        admittedRps: goodput,
        admittedP50Ms: Math.round(
          percentile(
            admitted.map((o) => o.ms),
            50,
          ),
        ),
        admittedP99Ms: p99,
        refused: refused.length,
        generatorDropped: dropped,
        maxHostPending: maxPending,
        maxRssMiB: Object.entries(rss)
          .map(([p, v]) => `${p} ${Math.round(v)}/${budgetOf(p)}`)
          .join(', '),
        maxEventLoopP99Ms: Object.entries(sampler.maxGauge('loopP99ms'))
          .map(([p, v]) => `${p} ${v.toFixed(1)}`)
          .join(', '),
      },
      ...verdict(checks, [
        'refused requests are the designed answer (429 / RESOURCE_EXHAUSTED with a retry hint), not failures; "failed" counts only answers outside that contract',
      ]),
    };
  },
};
