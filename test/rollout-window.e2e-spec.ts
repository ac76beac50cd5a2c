import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { RoutingTableRepository } from '@mesh/routing';
import { RedisTrafficSignalSource } from '@mesh/signals';
import { call } from './support/router-mesh';
import {
  ADMIN,
  MODEL,
  TASK,
  createRollout,
  expectStaysIn,
  freePort,
  startCoordinator,
  startHost,
  startLoad,
  stopLoads,
  startRouter,
  waitForRollout,
  writeRolloutRepository,
  type RolloutView,
} from './support/rollout-mesh';
import { uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

/**
 * When a rollout may start, end to end: a closed cron window and a busy task both keep it in
 * `waiting_for_window` without touching the route; an operator abort or the load going quiet
 * ends the wait. One model host, one router, one coordinator, one Redis (own key prefix).
 * Nothing here measures time: every wait polls state with a generous deadline.
 */
jest.setTimeout(120_000);

/**
 * The coordinator's low-load window. Routers keep their default 5 s signal buckets: the
 * coordinator reads buckets of that length (it has no bucket setting), and a bucket counts
 * whole, so the measured rate only drops to zero once the sample window has left the last
 * bucket that saw traffic.
 */
const LOAD_SAMPLE_MS = 2000;
const LOW_LOAD = { maxRequestsPerSecond: 5, forSeconds: 2 };

const prefix = uniquePrefix(__filename);
let repo: string;
let host: StartedApp;
let router: StartedApp;
let coordinator: StartedApp;
let redis: RedisClient;
let table: RoutingTableRepository;
let signals: RedisTrafficSignalSource;

const coordinatorUrl = () => coordinator.urls.http!;

async function route() {
  const t = (await table.load())!;
  return { epoch: t.epoch, versions: t.routes.find((r) => r.task === TASK)?.versions };
}

/** The task's request rate across routers, read as the coordinator reads it. */
async function taskRate(): Promise<number> {
  const now = Date.now();
  return (await signals.read({ task: TASK, fromMs: now - LOAD_SAMPLE_MS, toMs: now }))
    .ratePerSecond;
}

function transitions(view: RolloutView): string[] {
  return view.timeline.map((e) => `${e.to}${e.to === 'canary' ? `:${e.step}` : ''}`);
}

/** A daily cron hour twelve hours from now in `timeZone`: its window cannot open during a run. */
function hourFarFromNow(timeZone: string): number {
  const hour = new Intl.DateTimeFormat('en-US', { timeZone, hour: 'numeric', hourCycle: 'h23' })
    .formatToParts(new Date())
    .find((p) => p.type === 'hour')!.value;
  return (Number(hour) + 12) % 24;
}

async function abort(id: string): Promise<RolloutView> {
  const r = await call(coordinatorUrl(), 'POST', `/v1/rollouts/${id}/abort`, { key: ADMIN });
  expect(r.status).toBe(202);
  return waitForRollout(coordinatorUrl, id, (v) => v.state === 'aborted', 'aborted');
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'rollout-window-e2e-'));
  const seed = await writeRolloutRepository(repo);
  const grpcPort = await freePort();
  const backends = `127.0.0.1:${grpcPort}`;
  host = await startHost(repo, grpcPort);
  router = await startRouter('router-a', prefix, repo, seed, backends);
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'rollout-window',
  });
  table = new RoutingTableRepository(redis, { keyPrefix: prefix });
  signals = new RedisTrafficSignalSource(redis, { keyPrefix: prefix });
  await pollUntil(
    async () => (await fetch(`${router.urls.http}/healthz/ready`)).status === 200 || undefined,
    { timeoutMs: 60_000, what: 'the router ready' },
  );
  coordinator = await startCoordinator('coord-a', prefix, repo, backends, {
    COORDINATOR_LOAD_SAMPLE_MS: String(LOAD_SAMPLE_MS),
  });
}, 300_000);

afterEach(stopLoads);

afterAll(async () => {
  await coordinator?.stop('SIGKILL');
  await router?.stop('SIGKILL');
  await host?.stop('SIGKILL');
  rmSync(repo, { recursive: true, force: true });
  const stale = await redis.keys(`${prefix}*`);
  if (stale.length > 0) await redis.del(...stale);
  await closeRedis(redis);
});

describe('rollout start conditions, end to end', () => {
  it('waits outside its window without moving traffic, until an operator aborts it', async () => {
    const before = await route();
    expect(before.versions).toEqual([{ version: 1, weight: 100 }]);
    const timezone = 'Asia/Kolkata';
    const window = { cron: `0 ${hourFarFromNow(timezone)} * * *`, durationMinutes: 60, timezone };
    const created = await createRollout(coordinatorUrl(), {
      task: TASK,
      model: MODEL,
      toVersion: 2,
      window,
      steps: [
        { weight: 50, holdSeconds: 1 },
        { weight: 100, holdSeconds: 1 },
      ],
    });

    await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'waiting_for_window',
      'waiting for the window',
    );
    // Loading is done and nothing else holds it back: inside a window it would be at step 1
    // within a tick. Many ticks later it still waits.
    const waiting = await expectStaysIn(coordinatorUrl(), created.id, 'waiting_for_window');
    expect(transitions(waiting)).toEqual(['loading', 'waiting_for_window']);
    expect(waiting.step).toBe(0);
    expect(waiting.weights).toEqual([{ version: 1, weight: 100 }]);
    expect(await route()).toEqual(before);

    const aborted = await abort(created.id);
    expect(transitions(aborted)).toEqual(['loading', 'waiting_for_window', 'aborted']);
    expect(aborted.timeline.at(-1)!.reason).toBe('aborted by operator; previous weights in place');
    expect(aborted.weights).toEqual([{ version: 1, weight: 100 }]);
    // The weights never changed, so the abort had nothing to restore: not one route write.
    expect(await route()).toEqual(before);
  });

  it('with lowLoad waits while the task is busy and starts once the load has stayed low', async () => {
    const before = await route();
    expect(before.versions).toEqual([{ version: 1, weight: 100 }]);
    const load = startLoad(() => [router.urls.http!]);
    try {
      // The routers' signals must show the load well above the threshold before the rollout
      // exists, or the wait below would prove nothing.
      await pollUntil(
        async () => (await taskRate()) >= 3 * LOW_LOAD.maxRequestsPerSecond || undefined,
        { timeoutMs: 60_000, what: `a task rate of ${3 * LOW_LOAD.maxRequestsPerSecond} rps` },
      );
      const created = await createRollout(coordinatorUrl(), {
        task: TASK,
        model: MODEL,
        toVersion: 2,
        lowLoad: LOW_LOAD,
        steps: [
          { weight: 50, holdSeconds: 600 },
          { weight: 100, holdSeconds: 1 },
        ],
      });
      await waitForRollout(
        coordinatorUrl,
        created.id,
        (v) => v.state === 'waiting_for_window',
        'waiting for low load',
      );
      // Longer than forSeconds and many ticks: had the load been ignored it would have started.
      const waiting = await expectStaysIn(coordinatorUrl(), created.id, 'waiting_for_window', {
        polls: 40,
      });
      expect(await taskRate()).toBeGreaterThanOrEqual(LOW_LOAD.maxRequestsPerSecond);
      expect(transitions(waiting)).toEqual(['loading', 'waiting_for_window']);
      expect(waiting.weights).toEqual([{ version: 1, weight: 100 }]);
      expect(await route()).toEqual(before);

      const answers = await load.stop();
      expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      const started = await waitForRollout(
        coordinatorUrl,
        created.id,
        (v) => v.state === 'canary',
        'the first step once the load is low',
      );
      expect(transitions(started)).toEqual(['loading', 'waiting_for_window', 'canary:1']);
      const start = started.timeline.at(-1)!;
      expect(start.from).toBe('waiting_for_window');
      expect(start.reason).toBe(
        `no window, load below ${LOW_LOAD.maxRequestsPerSecond} rps for ${LOW_LOAD.forSeconds} s; step 1: 50% on version 2`,
      );
      const measured = start.metrics as {
        requestsPerSecond: number;
        lowForSeconds: number;
        epoch: number;
      };
      expect(measured.requestsPerSecond).toBeLessThan(LOW_LOAD.maxRequestsPerSecond);
      expect(measured.lowForSeconds).toBeGreaterThanOrEqual(LOW_LOAD.forSeconds);
      const moved = await route();
      expect(measured.epoch).toBe(moved.epoch);
      expect(moved.epoch).toBeGreaterThan(before.epoch);
      expect(moved.versions).toEqual([
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ]);
      expect(started.weights).toEqual(moved.versions);

      // Abort restores the weights the route had before the rollout.
      const aborted = await abort(created.id);
      expect(transitions(aborted)).toEqual([
        'loading',
        'waiting_for_window',
        'canary:1',
        'aborted',
      ]);
      expect((await route()).versions).toEqual([{ version: 1, weight: 100 }]);
    } finally {
      await load.stop();
    }
  });
});
