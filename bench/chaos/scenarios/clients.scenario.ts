import { Metadata } from '@grpc/grpc-js';
import { CHAOS_KEY, TASK, hostPort, sleep, waitFor } from '../cluster';
import {
  PROBE_MODEL,
  both,
  grpcWave,
  leaveAfter,
  type Leave,
  hostCounters,
  hostHttpWave,
  httpWave,
  type HostCounters,
  type Wave,
} from '../clients/abandon.probe';
import { fdCount, slowClient, type SlowEnd, type SlowKind } from '../clients/slow-client';
import { Recorder, closedLoop, httpPredict, predictorClient } from '../load';
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

export interface SlowRun {
  ends: SlowEnd[];
  fdsBefore: number;
  fdsPeak: number;
  fdsAfter: number;
}

/** `perKind` slow-headers and slow-body connections against one server; waits until all end. */
export async function slowloris(
  base: string,
  path: string,
  pid: number,
  perKind: number,
  waitMs: number,
): Promise<SlowRun> {
  const fdsBefore = fdCount(pid);
  const clients = (['headers', 'body'] as SlowKind[]).flatMap((kind) =>
    Array.from({ length: perKind }, () => slowClient(base, path, kind, 500)),
  );
  await sleep(1000);
  const fdsPeak = fdCount(pid);
  // A connection the server never cuts is ended by us after `waitMs` (and counted as such).
  const limit = setTimeout(() => clients.forEach((c) => c.stop()), waitMs);
  const ends = await Promise.all(clients.map((c) => c.ended));
  clearTimeout(limit);
  // The server closes its side at once; give the fd table a moment to settle.
  const fdsAfter = await waitFor(
    () => {
      const n = fdCount(pid);
      return n <= fdsBefore + 2 ? n : undefined;
    },
    'fds back to normal',
    5000,
  ).catch(() => fdCount(pid));
  return { ends, fdsBefore, fdsPeak, fdsAfter };
}

/** A caller wave's effect on the host's counters (after the host went idle). */
export interface WaveEffect {
  name: string;
  wave: Wave;
  delta: HostCounters;
}

export async function measureWave(
  name: string,
  host: { http: string; metrics: string },
  run: () => Promise<Wave>,
): Promise<WaveEffect> {
  const before = await hostCounters(host.http, host.metrics);
  const wave = await run();
  const after = await waitFor(
    async () => {
      const c = await hostCounters(host.http, host.metrics);
      return c.pending === 0 ? c : undefined;
    },
    `${name}: host idle`,
    60_000,
    100,
  );
  const delta = {
    success: after.success - before.success,
    inferenceRows: after.inferenceRows - before.inferenceRows,
    executedRows: after.executedRows - before.executedRows,
    abandoned: after.abandoned - before.abandoned,
    pending: after.pending,
  };
  return { name, wave, delta };
}

/** What a wave must show: callers that left were dropped, and nothing ran for nobody. */
export function waveChecks(e: WaveEffect): Check[] {
  const d = e.delta;
  const sentRows = e.wave.rows;
  return [
    {
      name: `${e.name}: the host dropped queued requests whose callers left`,
      ok: d.abandoned > 0,
      detail: `sent ${e.wave.sent}, answered before leaving ${e.wave.answered}, abandoned ${d.abandoned}`,
    },
    {
      name: `${e.name}: every row the model ran belongs to a completed request`,
      ok: d.executedRows === d.inferenceRows,
      detail: `executed ${d.executedRows} rows, completed ${d.inferenceRows}`,
    },
    {
      name: `${e.name}: the host ran less than was sent (completed + dropped ≤ sent)`,
      ok: d.success + d.abandoned <= e.wave.sent && d.executedRows < sentRows,
      detail: `completed ${d.success} + dropped ${d.abandoned} of ${e.wave.sent}; rows ${d.executedRows}/${sentRows}`,
    },
  ];
}

/** `n` router gRPC Predict calls at once, all cancelled when `leave` resolves. */
async function routerGrpcWave(
  address: string,
  text: string,
  n: number,
  leave: Leave,
): Promise<Wave> {
  /* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- grpc-js client built from proto/ */
  const client = predictorClient(address);
  const md = new Metadata();
  md.set('authorization', `Bearer ${CHAOS_KEY}`);
  let answered = 0;
  const calls: { cancel(): void }[] = [];
  const done = Array.from(
    { length: n },
    () =>
      new Promise<void>((resolve) => {
        calls.push(
          client.Predict({ task: TASK, text }, md, (err: unknown) => {
            if (!err) answered++;
            resolve();
          }),
        );
      }),
  );
  await Promise.race([leave(), Promise.all(done)]);
  for (const c of calls) c.cancel();
  await Promise.all(done);
  client.close();
  /* eslint-enable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument */
  return { sent: n, rows: n, answered };
}

/**
 * Router callers that leave while their requests wait on the host: a backlog of direct calls
 * on the version the route serves (callers that stay) keeps the host's instance busy, so the
 * router's requests queue behind it. The callers leave once the host's pending count shows
 * some of theirs arrived (pending minus the backlog still unanswered); the router must then
 * cancel its backend calls, and the host drop them.
 */
async function behindBacklog(
  h: { http: string; metrics: string },
  hostGrpc: string,
  n: number,
  wave: (leave: Leave) => Promise<Wave>,
): Promise<Wave> {
  const backlogSize = 6 * n;
  const progress = { answered: 0 };
  const backlog = grpcWave(hostGrpc, backlogSize, undefined, progress, '1');
  await sleep(20);
  const arrived: Leave = () =>
    waitFor(
      async () => {
        const c = await hostCounters(h.http, h.metrics);
        return c.pending - (backlogSize - progress.answered) >= Math.max(1, n / 4)
          ? true
          : undefined;
      },
      'router requests queued on the host',
      10_000,
      5,
    ).then(
      () => undefined,
      () => undefined,
    );
  const [b, w] = await Promise.all([backlog, wave(arrived)]);
  return both(b, w);
}

/** The callers-that-leave part against a running host and router (URLs as announced). */
export async function abandonWaves(
  urls: {
    hostHttp: string;
    hostGrpc: string;
    hostMetrics: string;
    routerHttp: string;
    routerGrpc: string;
  },
  n: number,
): Promise<WaveEffect[]> {
  const h = { http: urls.hostHttp, metrics: urls.hostMetrics };
  const hostGrpc = hostPort(urls.hostGrpc);
  // 128 tokens after truncation: a predict as expensive as the model allows.
  const text = '问题是什么'.repeat(60);
  return [
    await measureWave('host gRPC cancel', h, () => grpcWave(hostGrpc, n, leaveAfter(30))),
    await measureWave('host HTTP close', h, () => hostHttpWave(urls.hostHttp, n, leaveAfter(30))),
    await measureWave('router HTTP close', h, () =>
      behindBacklog(h, hostGrpc, n, (leave) =>
        httpWave(
          `${urls.routerHttp}/v1/predict`,
          JSON.stringify({ task: TASK, text }),
          { authorization: `Bearer ${CHAOS_KEY}` },
          n,
          1,
          leave,
        ),
      ),
    ),
    await measureWave('router gRPC cancel', h, () =>
      behindBacklog(h, hostGrpc, n, (leave) => routerGrpcWave(urls.routerGrpc, text, n, leave)),
    ),
  ];
}

export const clientsScenario: ChaosScenario = {
  id: 'clients',
  title: 'Slow and broken clients',
  async run(ctx): Promise<ScenarioResult> {
    const perKind = ctx.quick ? 20 : 50;
    const waveSize = ctx.quick ? 40 : 80;
    const cluster = ctx.cluster();
    await cluster.startRedis();
    const host = await cluster.startHost({ env: SLOW_CLIENT_ENV });
    const router = await cluster.startRouter({ env: SLOW_CLIENT_ENV });
    const checks: Check[] = [];
    const figures: Record<string, number | string> = {};

    // Normal callers keep going through the router (and so the host) the whole time.
    const rec = new Recorder();
    const stopLoad = new AbortController();
    const signal = AbortSignal.any([stopLoad.signal, ctx.signal]);
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
