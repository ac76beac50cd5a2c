import { CHAOS_KEY, sleep, type Proc } from '../cluster';
import {
  closedLoop,
  grpcPredict,
  httpPredict,
  Recorder,
  type Outcome,
  type RetryPolicy,
  anyOf,
} from '../load';
import { verdict, type ChaosScenario, type Check } from '../scenario';

/**
 * Scenario 2: a rolling restart of two routers under load. Each router in turn gets SIGTERM,
 * drains, exits and is started again on the same ports before the next one goes.
 *
 * What a client or load balancer retries (on the other router) — answers proving the request
 * never reached a handler: connection refused, a connection reset or closed before any response
 * byte, Fastify's own 503 to a request arriving while it closes (no mesh error code), the
 * router's `SHUTTING_DOWN`, and on gRPC an UNAVAILABLE without a mesh code (the transport's).
 * The retrying client must see 0 failures; a naive client (no retries) shows which of those
 * classes a restart produces, and none of its requests that reached a handler may fail.
 */

const RETRY: RetryPolicy = { attempts: 4, backoffMs: 25 };

export const routerRestartScenario: ChaosScenario = {
  id: 'router-restart',
  title: 'Router SIGTERM under load (rolling restart)',
  async run(ctx) {
    const cluster = ctx.cluster();
    await cluster.startRedis();
    await cluster.startHost();
    const routers: Proc[] = [await cluster.startRouter(), await cluster.startRouter()];
    const rounds = ctx.quick ? 1 : 3;
    const settleMs = ctx.quick ? 1500 : 4000;

    const retrying = new Recorder();
    const naive = new Recorder();
    const retryingGrpc = new Recorder();
    const stopLoad = new AbortController();
    const signal = anyOf(stopLoad.signal, ctx.signal);
    const httpUrls = () => routers.map((r) => r.urls.http!);
    const grpcUrls = () => routers.map((r) => r.urls.grpc!);
    const grpcSend = grpcPredict(grpcUrls, CHAOS_KEY);
    const loops = [
      closedLoop({
        send: httpPredict(httpUrls, CHAOS_KEY),
        targets: 2,
        rec: retrying,
        retry: RETRY,
        signal,
        concurrency: 6,
      }),
      closedLoop({
        send: httpPredict(httpUrls, CHAOS_KEY),
        targets: 2,
        rec: naive,
        signal,
        concurrency: 4,
        pauseAfterFailureMs: 100,
      }),
      closedLoop({
        send: grpcSend,
        targets: 2,
        rec: retryingGrpc,
        retry: RETRY,
        signal,
        concurrency: 2,
      }),
    ];

    await sleep(settleMs);
    const terms: {
      at: number;
      router: string;
      drainMs: number;
      code: number | null;
      readyMs: number;
    }[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const r of routers) {
        const at = retrying.now();
        r.signal('SIGTERM');
        const code = await r.exited();
        const drainMs = retrying.now() - at;
        await r.restart();
        const readyMs = retrying.now() - at;
        terms.push({ at, router: r.name, drainMs, code, readyMs });
        ctx.log(
          `${r.name}: SIGTERM → exit ${code} in ${drainMs} ms, ready again after ${readyMs} ms`,
        );
        await sleep(settleMs);
      }
    }
    stopLoad.abort();
    await Promise.all(loops);
    grpcSend.close();

    const retryable = (cls: string) =>
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'EPIPE',
        'socket hang up',
        '503 closing',
        '503 SHUTTING_DOWN',
      ].includes(cls);
    const failedRetrying = [...retrying.outcomes, ...retryingGrpc.outcomes].filter((o) => !o.ok);
    const naiveFailed = naive.outcomes.filter((o) => !o.ok);
    const naiveNonRetryable = naiveFailed.filter((o) => !retryable(o.cls));
    // Requests that were running on a router when it got SIGTERM: all must complete.
    const inFlightAtTerm = (list: readonly Outcome[]) =>
      list.filter((o) => terms.some((t) => o.t <= t.at && o.t + o.ms > t.at));
    const inFlight = inFlightAtTerm([
      ...retrying.outcomes,
      ...naive.outcomes,
      ...retryingGrpc.outcomes,
    ]);
    const inFlightFailed = inFlight.filter((o) => !o.ok && o.attempts <= 1);
    const retriedOk = [...retrying.outcomes, ...retryingGrpc.outcomes].filter(
      (o) => o.ok && o.attempts > 1,
    );
    const retriedClasses: Record<string, number> = {};
    for (const o of retriedOk)
      for (const c of o.retried) retriedClasses[c] = (retriedClasses[c] ?? 0) + 1;

    const checks: Check[] = [
      {
        name: 'retrying client (HTTP and gRPC): 0 failed requests',
        ok: failedRetrying.length === 0,
        detail: JSON.stringify(retrying.counts(failedRetrying)),
      },
      {
        name: 'naive client: only never-handled answers fail (refused / reset before a byte / 503 closing)',
        ok: naiveNonRetryable.length === 0,
        detail: JSON.stringify(naive.counts(naiveNonRetryable)),
      },
      {
        name: 'requests in flight at SIGTERM complete',
        ok: inFlightFailed.length === 0,
        detail: `${inFlightFailed.length} of ${inFlight.length} failed`,
      },
      { name: 'every router exits 0 after SIGTERM', ok: terms.every((t) => t.code === 0) },
      {
        name: 'traffic flowed throughout',
        ok: retrying.outcomes.filter((o) => o.ok).length > 0 && naive.outcomes.some((o) => o.ok),
      },
    ];
    const sent = retrying.outcomes.length + retryingGrpc.outcomes.length + naive.outcomes.length;
    const elapsed = retrying.now();
    return {
      id: this.id,
      title: this.title,
      load: `2 routers, 1 host; closed loop c=6 HTTP + c=2 gRPC retrying clients, c=4 HTTP naive client (no retry, 100 ms pause after a failure) (~${Math.round((sent / elapsed) * 1000)} rps)`,
      faults: `${terms.length} SIGTERMs (rolling restart of both routers, ${rounds} round${rounds > 1 ? 's' : ''})`,
      requests: {
        sent,
        failed: failedRetrying.length,
        failedDetail: {
          ...retrying.counts(failedRetrying),
          ...Object.fromEntries(
            Object.entries(naive.counts(naiveFailed)).map(([k, v]) => [`naive client: ${k}`, v]),
          ),
        },
      },
      recoveryMs: Math.max(...terms.map((t) => t.readyMs)),
      dataLost: 0,
      fixes: [
        'router: the gRPC port opened before boot finished (Nest starts microservices without the bootstrap hooks), so a restarted router answered gRPC calls UNAUTHENTICATED / UNAVAILABLE until its routing table and backends were loaded; it now boots before listening',
      ],
      figures: {
        rps: Math.round((sent / elapsed) * 1000),
        retryingClientRequests: retrying.outcomes.length + retryingGrpc.outcomes.length,
        retryingClientFailed: failedRetrying.length,
        retriedThenOk: retriedOk.length,
        retriedClasses: JSON.stringify(retriedClasses),
        naiveClientRequests: naive.outcomes.length,
        naiveClientFailed: naiveFailed.length,
        inFlightAtSigterm: inFlight.length,
        maxDrainMs: Math.max(...terms.map((t) => t.drainMs)),
        maxRestartToReadyMs: Math.max(...terms.map((t) => t.readyMs)),
      },
      ...verdict(checks, [
        'retried by clients/load balancers: connection refused, reset or closed before any response byte, Fastify 503 while closing, 503 SHUTTING_DOWN, gRPC UNAVAILABLE without x-mesh-error-code',
      ]),
    };
  },
};
