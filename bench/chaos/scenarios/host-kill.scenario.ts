import { CHAOS_KEY, sleep, waitFor } from '../cluster';
import { closedLoop, grpcPredict, httpPredict, Recorder, type Outcome, anyOf } from '../load';
import { hostSuccesses } from '../metrics';
import { verdict, type ChaosScenario, type Check } from '../scenario';

/**
 * Scenario 1: two model hosts behind one router under a steady closed loop; SIGKILL one host,
 * keep the load, restart it. Counts the failures and when they started: the only acceptable
 * ones are requests that were in flight when the host died (started before the kill, answered
 * after it), each a clean `503 BACKEND_UNAVAILABLE` / gRPC `UNAVAILABLE` — no hang, no other
 * class — and none may start later than one discovery interval after the kill. Recovery is the
 * time from restarting the host until it serves routed traffic again.
 */

/** The router's discovery period (the issue measured with the 2 s default). */
const DISCOVERY_MS = 2000;
/** Per-probe deadline of discovery (KSERVE_PROBE_DEADLINE_MS default): detection may take both. */
const PROBE_DEADLINE_MS = 1000;

/** The failure classes a caller may see for a request that was on the killed host. */
const CLEAN_FAILURES = new Set(['503 BACKEND_UNAVAILABLE', 'grpc UNAVAILABLE BACKEND_UNAVAILABLE']);

export const hostKillScenario: ChaosScenario = {
  id: 'host-kill',
  title: 'Host SIGKILL with two hosts',
  async run(ctx) {
    const cluster = ctx.cluster();
    const warmMs = ctx.quick ? 2000 : 5000;
    const downMs = ctx.quick ? 2 * DISCOVERY_MS + 1000 : 4 * DISCOVERY_MS;
    const tailMs = ctx.quick ? 1000 : 5000;
    const httpC = 8;
    const grpcC = ctx.quick ? 0 : 4;

    await cluster.startRedis();
    const [, victim] = await Promise.all([cluster.startHost(), cluster.startHost()]);
    const router = await cluster.startRouter({
      env: { KSERVE_HEALTH_INTERVAL_MS: String(DISCOVERY_MS) },
    });
    ctx.log(`router ${router.urls.http}, hosts ${cluster.backends()}`);

    const rec = new Recorder();
    const stopLoad = new AbortController();
    const signal = anyOf(stopLoad.signal, ctx.signal);
    const http = httpPredict(() => [router.urls.http!], CHAOS_KEY);
    const grpc = grpcPredict(() => [router.urls.grpc!], CHAOS_KEY);
    const loops = [closedLoop({ send: http, targets: 1, rec, signal, concurrency: httpC })];
    if (grpcC > 0)
      loops.push(closedLoop({ send: grpc, targets: 1, rec, signal, concurrency: grpcC }));

    await sleep(warmMs);
    const victimBefore = await hostSuccesses(victim);
    const killAt = rec.now();
    victim.signal('SIGKILL');
    await victim.exited();
    ctx.log(`SIGKILL ${victim.name} at ${killAt} ms (it had served ${victimBefore})`);
    await sleep(downMs);

    const restartAt = rec.now();
    await victim.restart();
    const listeningAt = rec.now();
    ctx.log(`${victim.name} listening again after ${listeningAt - restartAt} ms`);
    // Routed traffic reached the restarted host: its own success counter moves.
    const servedAt = await waitFor(
      async () => ((await hostSuccesses(victim)) > 0 ? rec.now() : undefined),
      'the restarted host to serve routed traffic',
      60_000,
      100,
    ).catch(() => undefined);
    await sleep(tailMs);
    stopLoad.abort();
    await Promise.all(loops);
    grpc.close();

    const all = rec.outcomes;
    const failed = all.filter((o) => !o.ok);
    const inFlightAtKill = all.filter((o) => o.t <= killAt && o.t + o.ms >= killAt);
    const failedInFlight = failed.filter((o) => o.t <= killAt && o.t + o.ms >= killAt);
    const failedLater = failed.filter((o) => o.t > killAt);
    const lastFailureStart = failedLater.reduce((m, o) => Math.max(m, o.t - killAt), 0);
    const unclean = failed.filter((o) => !CLEAN_FAILURES.has(o.cls));
    const beforeKillFailures = failed.filter((o) => o.t + o.ms < killAt);
    const afterRecovery =
      servedAt === undefined ? [] : failed.filter((o: Outcome) => o.t >= servedAt);

    const checks: Check[] = [
      { name: 'requests were served before the kill', ok: all.some((o) => o.ok && o.t < killAt) },
      {
        name: 'no failure before the kill',
        ok: beforeKillFailures.length === 0,
        detail: `${beforeKillFailures.length}`,
      },
      {
        name: 'every failure is a clean 503 BACKEND_UNAVAILABLE / gRPC UNAVAILABLE',
        ok: unclean.length === 0,
        detail: JSON.stringify(rec.counts(unclean)),
      },
      {
        name: 'failures limited to requests in flight at the kill, plus those started within one discovery interval (+ probe deadline) of it',
        ok: failedLater.every((o) => o.t - killAt <= DISCOVERY_MS + PROBE_DEADLINE_MS),
        detail: `last failing request started ${lastFailureStart} ms after the kill`,
      },
      {
        name: 'the restarted host serves routed traffic again',
        ok: servedAt !== undefined,
      },
      {
        name: 'no failure after recovery',
        ok: afterRecovery.length === 0,
        detail: `${afterRecovery.length}`,
      },
    ];
    const v = verdict(checks);
    return {
      id: this.id,
      title: this.title,
      load: `closed loop c=${httpC} HTTP keep-alive${grpcC ? ` + c=${grpcC} gRPC` : ''} on one router, 2 hosts (~${Math.round((all.length / rec.now()) * 1000)} rps)`,
      faults: `SIGKILL 1 of 2 hosts at t=${(killAt / 1000).toFixed(1)} s, restart ${(downMs / 1000).toFixed(0)} s later`,
      requests: { sent: all.length, failed: failed.length, failedDetail: rec.counts(failed) },
      ...(servedAt !== undefined ? { recoveryMs: servedAt - restartAt } : {}),
      dataLost: 0,
      fixes: [
        "kserve pool: a backend seen unreachable that answers discovery again gets its circuit closed at once; a restarted host took traffic only after the breaker's 5 s half-open delay plus a discovery round",
      ],
      figures: {
        rps: Math.round((all.length / rec.now()) * 1000),
        inFlightAtKill: inFlightAtKill.length,
        failedInFlightAtKill: failedInFlight.length,
        failedStartedAfterKill: failedLater.length,
        lastFailureStartAfterKillMs: lastFailureStart,
        discoveryIntervalMs: DISCOVERY_MS,
        hostBootMs: listeningAt - restartAt,
        routedAfterListeningMs: servedAt !== undefined ? servedAt - listeningAt : 'never',
      },
      ...v,
    };
  },
};
