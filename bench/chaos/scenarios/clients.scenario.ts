import { CHAOS_KEY } from '../cluster';
import { PROBE_MODEL } from '../clients/abandon.probe';
import { abandonWaves, waveChecks } from '../clients/abandon.waves';
import { slowloris } from '../clients/slow-client';
import { Recorder, anyOf, closedLoop, httpPredict } from '../load';
import { verdict, type ChaosScenario, type Check, type ScenarioResult } from '../scenario';

/**
 * Scenario 6a: slow and broken clients. Slowloris connections (headers or body trickled one
 * piece at a time) against the router's HTTP port and the host's KServe HTTP port while normal
 * traffic flows: the servers must cut them off and keep serving, and give their sockets back.
 * Then waves of callers that leave while their requests queue on the host (gRPC cancel, closed
 * HTTP connections, directly and through the router): the host must drop what it has not run,
 * which its statistics show (rows executed stay below rows sent; every executed row belongs to
 * a request that completed).
 */

/** Lowered for the run so a cut-off comes within seconds; the defaults are 10 s / 300 s. */
export const SLOW_CLIENT_ENV = { HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000' };

export const CLIENT_FIXES = [
  'a queued request whose caller left (gRPC cancel, closed HTTP connection) still ran on ORT: the host now drops it before dispatch (mesh_host_requests_abandoned_total, Triton failure reason CANCELED)',
  'the router did not cancel its backend call when its own caller left: it now does (outcome CLIENT_CLOSED, not a version error)',
  'Fastify had turned off Node’s request timeout: a client trickling its body held its socket forever; HTTP_REQUEST_TIMEOUT_MS / HTTP_HEADERS_TIMEOUT_MS now bound every app, checked every second',
  'the router answered a timed-out request as 400 "malformed HTTP request": now 408 REQUEST_TIMEOUT in its error shape',
];

export const clientsScenario: ChaosScenario = {
  id: 'clients',
  title: 'Slow and broken clients',
  async run(ctx): Promise<ScenarioResult> {
    const perKind = ctx.quick ? 20 : 50;
    const waveSize = ctx.quick ? 40 : 80;
    const cluster = ctx.cluster();
    await cluster.startRedis();
    const host = await cluster.startHost({ env: SLOW_CLIENT_ENV });
    // One backend call per request, so the router waves below measure the cancel path from
    // the router to the host. With coalescing on, a caller that leaves while it waits to be
    // merged is dropped in the router before any call, and a merged call is cancelled once all
    // its callers left (coalesced-inference.spec.ts).
    const router = await cluster.startRouter({
      env: { ...SLOW_CLIENT_ENV, ROUTER_COALESCE: 'off' },
    });
    const checks: Check[] = [];
    const figures: Record<string, number | string> = {};

    // Normal callers keep going through the router (and so the host) the whole time.
    const rec = new Recorder();
    const stopLoad = new AbortController();
    const signal = anyOf(stopLoad.signal, ctx.signal);
    const loop = closedLoop({
      send: httpPredict(() => [router.urls.http!], CHAOS_KEY),
      targets: 1,
      rec,
      signal,
      concurrency: 2,
    });
    const waitMs = 4000 + 15_000;
    const [onRouter, onHost] = await Promise.all([
      slowloris(router.urls.http!, '/v1/predict', router.pid, perKind, waitMs),
      slowloris(host.urls.http!, `/v2/models/${PROBE_MODEL}/infer`, host.pid, perKind, waitMs),
    ]);
    stopLoad.abort();
    await loop;
    for (const [name, run] of [
      ['router', onRouter],
      ['host', onHost],
    ] as const) {
      const cut = run.ends.filter((e) => e.closedByServer).length;
      checks.push({
        name: `${name}: every slow connection cut off by the server`,
        ok: cut === run.ends.length,
        detail: `${cut}/${run.ends.length}`,
      });
      checks.push({
        name: `${name}: file descriptors back to normal`,
        ok: run.fdsAfter <= run.fdsBefore + 2,
        detail: `${run.fdsBefore} → peak ${run.fdsPeak} → ${run.fdsAfter}`,
      });
      figures[`${name} fds before/peak/after`] = `${run.fdsBefore}/${run.fdsPeak}/${run.fdsAfter}`;
      figures[`${name} slowest cut-off ms`] = Math.max(0, ...run.ends.map((e) => e.afterMs));
      figures[`${name} 408 answers`] = run.ends.filter((e) => e.status === 408).length;
    }
    const failures = rec.failures();
    const normal = rec.outcomes.length;
    checks.push({
      name: 'normal traffic served throughout (0 failures)',
      ok: normal > 0 && Object.keys(failures).length === 0,
      detail: JSON.stringify(failures),
    });

    const waves = await abandonWaves(
      {
        hostHttp: host.urls.http!,
        hostGrpc: host.urls.grpc!,
        hostMetrics: host.urls.metrics!,
        routerHttp: router.urls.http!,
        routerGrpc: router.urls.grpc!,
      },
      waveSize,
    );
    for (const w of waves) {
      checks.push(...waveChecks(w));
      figures[`${w.name}: sent/dropped/rows run`] =
        `${w.wave.sent}/${w.delta.abandoned}/${w.delta.executedRows} of ${w.wave.rows}`;
    }
    const alive = host.running() && router.running();
    checks.push({ name: 'router and host alive', ok: alive });
    const slowSent = onRouter.ends.length + onHost.ends.length;
    const waveSent = waves.reduce((a, w) => a + w.wave.sent, 0);
    return {
      id: 'clients',
      title: 'Slow and broken clients',
      load: `c=2 closed loop of predicts (${normal} requests) during ${slowSent} slowloris connections; ${waveSent} callers that leave`,
      faults: `${perKind} slow-header + ${perKind} slow-body connections per server (1 piece/500 ms; timeouts 2 s/4 s); callers cancelling after 30 ms`,
      requests: {
        sent: normal + slowSent + waveSent,
        failed: Object.values(failures).reduce((a, b) => a + b, 0),
        failedDetail: failures,
      },
      dataLost: 0,
      fixes: CLIENT_FIXES,
      figures,
      ...verdict(checks),
    };
  },
};
