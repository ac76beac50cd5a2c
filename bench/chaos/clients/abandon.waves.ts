import { Metadata } from '@grpc/grpc-js';
import { CHAOS_KEY, TASK, hostPort, waitFor } from '../cluster';
import { predictorClient } from '../load';
import type { Check } from '../scenario';
import {
  both,
  grpcWave,
  hostCounters,
  hostHttpWave,
  httpWave,
  type HostCounters,
  type Leave,
  type Wave,
} from './abandon.probe';

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

/**
 * `measureWave`, run again (up to `tries` times in all) while every caller of the wave was
 * answered before it could leave: on a busy machine the host can drain a wave first, and such
 * a wave shows nothing about callers that leave. The checks judge the last attempt.
 */
async function measureLeaving(
  name: string,
  host: { http: string; metrics: string },
  run: () => Promise<Wave>,
  tries = 3,
): Promise<WaveEffect> {
  let effect = await measureWave(name, host, run);
  for (let i = 1; i < tries && effect.wave.answered >= effect.wave.sent; i++) {
    effect = await measureWave(name, host, run);
  }
  return effect;
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
  // The router's requests go out once the backlog is on the host, not after a fixed delay: on
  // a slow machine the client is still sending the backlog, and router requests that reach an
  // idle host run at once instead of queueing.
  await arrivedAtHost(h, Math.ceil(backlogSize / 2))();
  const arrived = whenHost(
    h,
    (c) => c.pending - (backlogSize - progress.answered) >= Math.max(1, n / 4),
    'router requests queued on the host',
  );
  const [b, w] = await Promise.all([backlog, wave(arrived)]);
  return both(b, w);
}

/**
 * Resolves once the host's counters satisfy `ready`, or after 10 s: waves wait for what the
 * host shows, not for a fixed delay, which a slow machine outruns.
 */
function whenHost(
  h: { http: string; metrics: string },
  ready: (c: HostCounters) => boolean,
  what: string,
): Leave {
  return () =>
    waitFor(
      async () => (ready(await hostCounters(h.http, h.metrics)) ? true : undefined),
      what,
      10_000,
      5,
    ).then(
      () => undefined,
      () => undefined,
    );
}

/**
 * Once `count` requests are pending on the host (running or queued). Two instances run at most
 * two batches, so with half a wave of 40 eight-row requests pending some of it is queued.
 */
function arrivedAtHost(h: { http: string; metrics: string }, count: number): Leave {
  return whenHost(h, (c) => c.pending >= count, 'wave queued on the host');
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
    await measureLeaving('host gRPC cancel', h, () =>
      grpcWave(hostGrpc, n, arrivedAtHost(h, Math.ceil(n / 2))),
    ),
    await measureLeaving('host HTTP close', h, () =>
      hostHttpWave(urls.hostHttp, n, arrivedAtHost(h, Math.ceil(n / 2))),
    ),
    await measureLeaving('router HTTP close', h, () =>
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
    await measureLeaving('router gRPC cancel', h, () =>
      behindBacklog(h, hostGrpc, n, (leave) => routerGrpcWave(urls.routerGrpc, text, n, leave)),
    ),
  ];
}
