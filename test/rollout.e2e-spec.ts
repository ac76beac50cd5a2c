import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { FencedWriteError, RoutingTableRepository, routingKeys } from '@mesh/routing';
import { call, metricSum } from './support/router-mesh';
import {
  ADMIN,
  BAD_VERSION,
  GOOD_VERSION,
  LABELS,
  MODEL,
  TASK,
  createRollout,
  freePort,
  getRollout,
  repositoryIndex,
  startCoordinator,
  startHost,
  startLoad,
  stopLoads,
  startRouter,
  stateOf,
  waitForRollout,
  writeRolloutRepository,
  type Answer,
  type RolloutView,
} from './support/rollout-mesh';
import { uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

/**
 * Scheduled rollouts end to end, every part a real process over loopback: two model hosts in
 * explicit mode, two routers, two coordinator replicas, one Redis (own key prefix). Holds are
 * a few seconds; nothing here measures time, every wait polls state with a generous deadline.
 */
jest.setTimeout(180_000);

const prefix = uniquePrefix(__filename);
const keys = routingKeys(prefix);
let repo: string;
let seed: string;
let backends: string;
const grpcPorts: number[] = [];
const hosts: StartedApp[] = [];
const routers: StartedApp[] = [];
const coordinators = new Map<string, StartedApp>();
let redis: RedisClient;
let table: RoutingTableRepository;

/** Pipelines each version declares in its manifest (1: @1; 2, 3, 4: @2). */
const DECLARED = new Set([
  `${MODEL}@1:bert-wordpiece@1`,
  `${MODEL}@2:bert-wordpiece@2`,
  `${MODEL}@${BAD_VERSION}:bert-wordpiece@2`,
  `${MODEL}@${GOOD_VERSION}:bert-wordpiece@2`,
]);

const routerUrls = () => routers.map((r) => r.urls.http!);

async function leaseHolder(): Promise<{ token: number; holder: string } | undefined> {
  const value = await redis.get(keys.leaderLease);
  const m = value?.match(/^(\d+) (.+)$/);
  return m ? { token: Number(m[1]), holder: m[2]! } : undefined;
}

/**
 * The leader (the lease holder in Redis) and the other replica. Start order does not decide it
 * for good: a leader that misses renewing its lease (a stalled event loop on a loaded machine)
 * loses it to the standby, which is the failover working, and until a replica takes the lapsed
 * lease again nobody holds it; so this waits for a holder rather than reading the key once.
 */
async function roles(): Promise<{
  leader: StartedApp;
  standby: StartedApp;
  standbyId: string;
  token: number;
}> {
  return pollUntil(
    async () => {
      const lease = await leaseHolder();
      const leader = lease && coordinators.get(lease.holder);
      const [standbyId, standby] =
        [...coordinators.entries()].find(([id]) => id !== lease?.holder) ?? [];
      if (!lease || !leader || !standbyId || !standby) return undefined;
      return { leader, standby, standbyId, token: lease.token };
    },
    { timeoutMs: 30_000, what: 'a coordinator to hold the leader lease, with another beside it' },
  );
}

/** The API of a coordinator that is still running (any replica serves it). */
function coordinatorUrl(): string {
  for (const app of coordinators.values()) {
    // A SIGKILLed process has no exit code, only its signal.
    if (app.proc.exitCode === null && app.proc.signalCode === null) return app.urls.http!;
  }
  throw new Error('no coordinator is running');
}

async function routeVersions() {
  const t = await table.load();
  return t?.routes.find((r) => r.tenant === '*' && r.task === TASK)?.versions;
}

function transitions(view: RolloutView): string[] {
  return view.timeline.map((e) => `${e.to}${e.to === 'canary' ? `:${e.step}` : ''}`);
}

function failures(answers: Answer[]): Answer[] {
  return answers.filter((a) => a.status !== 200);
}

/**
 * Successful answers that do not fit what the repository declares: a tokenize answer's
 * (model, version, pipeline) must be a declared triple, a predict answer's version one the
 * model has and its label one of the model's labels.
 */
function undeclared(answers: Answer[]): string[] {
  const versions = new Set([...DECLARED].map((d) => d.split(':')[0]));
  const wrong: string[] = [];
  for (const a of answers.filter((x) => x.status === 200)) {
    const version = `${a.model}@${a.version}`;
    if (a.path === '/v1/tokenize') {
      if (!DECLARED.has(`${version}:${a.pipeline}`)) wrong.push(`${version}:${a.pipeline}`);
    } else if (!versions.has(version) || !LABELS.includes(a.label ?? '')) {
      wrong.push(`${version} label ${a.label}`);
    }
  }
  return wrong;
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'rollout-e2e-'));
  seed = await writeRolloutRepository(repo);
  grpcPorts.push(await freePort(), await freePort());
  backends = grpcPorts.map((p) => `127.0.0.1:${p}`).join(',');
  for (const port of grpcPorts) hosts.push(await startHost(repo, port));
  for (const id of ['router-a', 'router-b']) {
    routers.push(await startRouter(id, prefix, repo, seed, backends));
  }
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'rollout-e2e',
  });
  table = new RoutingTableRepository(redis, { keyPrefix: prefix });
  await pollUntil(
    async () => {
      const ready = await Promise.all(
        routerUrls().map(async (u) => (await fetch(`${u}/healthz/ready`)).status === 200),
      );
      return ready.every(Boolean) ? true : undefined;
    },
    { timeoutMs: 60_000, what: 'both routers ready' },
  );
  // coord-a starts first and takes the lease; coord-b stands by.
  coordinators.set('coord-a', await startCoordinator('coord-a', prefix, repo, backends));
  await pollUntil(async () => ((await leaseHolder())?.holder === 'coord-a' ? true : undefined), {
    timeoutMs: 30_000,
    what: 'coord-a to lead',
  });
  coordinators.set('coord-b', await startCoordinator('coord-b', prefix, repo, backends));
}, 300_000);

afterEach(stopLoads);

afterAll(async () => {
  await Promise.all([...coordinators.values()].map((c) => c.stop('SIGKILL')));
  await Promise.all(routers.map((r) => r.stop('SIGKILL')));
  await Promise.all(hosts.map((h) => h.stop('SIGKILL')));
  rmSync(repo, { recursive: true, force: true });
  const stale = await redis.keys(`${prefix}*`);
  if (stale.length > 0) await redis.del(...stale);
  await closeRedis(redis);
});

describe('rollout coordinator, end to end', () => {
  it(`moves ${MODEL} 1 → 2 under load without a failed request, then retires 1 on both hosts`, async () => {
    const load = startLoad(routerUrls);
    await pollUntil(() => (load.answers.length >= 20 ? true : undefined), {
      timeoutMs: 60_000,
      what: 'load on version 1',
    });
    const created = await createRollout(coordinatorUrl(), {
      task: TASK,
      model: MODEL,
      toVersion: 2,
      warmup: { requests: 2 },
      steps: [
        { weight: 10, holdSeconds: 2 },
        { weight: 50, holdSeconds: 2 },
        { weight: 100, holdSeconds: 2 },
      ],
      bakeSeconds: 1,
      gates: { maxErrorRate: 0.01, minRequests: 3 },
    });

    // Mid-rollout the coordinator's metrics show the canary (scraped, as Prometheus would).
    const canary = await pollUntil(
      async () => {
        const text = (await call(coordinatorUrl(), 'GET', '/metrics')).body as string;
        const labels = { rollout: created.id };
        return metricSum(text, 'mesh_rollout_state', { ...labels, state: 'canary' }) === 1
          ? { text, labels }
          : undefined;
      },
      { timeoutMs: 120_000, what: 'the canary state on /metrics' },
    );
    expect(metricSum(canary.text, 'mesh_rollout_step', canary.labels)).toBeGreaterThanOrEqual(1);
    expect([10, 50, 100]).toContain(
      metricSum(canary.text, 'mesh_rollout_new_version_weight', canary.labels),
    );

    const done = await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'completed',
      'completed',
    );
    const answers = await load.stop();

    expect(failures(answers)).toEqual([]);
    expect(undeclared(answers)).toEqual([]);
    // Both versions answered, and the tokenize answers named both pipelines.
    const seen = new Set(answers.map((a) => `${a.path} ${a.version}`));
    expect(
      ['/v1/predict 1', '/v1/predict 2', '/v1/tokenize 1', '/v1/tokenize 2'].every((k) =>
        seen.has(k),
      ),
    ).toBe(true);
    expect(transitions(done)).toEqual([
      'loading',
      'waiting_for_window',
      'warming',
      'canary:1',
      'canary:2',
      'canary:3',
      'baking',
      'promoted',
      'draining',
      'completed',
    ]);
    expect(done.weights).toEqual([{ version: 2, weight: 100 }]);
    expect(await routeVersions()).toEqual([{ version: 2, weight: 100 }]);
    for (const host of hosts) {
      const index = await repositoryIndex(host);
      expect([stateOf(index, 1), stateOf(index, 2)]).toEqual(['UNAVAILABLE/unloaded', 'READY']);
    }

    const text = (await call(coordinatorUrl(), 'GET', '/metrics')).body as string;
    const labels = { rollout: created.id, task: TASK, model: MODEL, to_version: '2' };
    expect(metricSum(text, 'mesh_rollout_state', { ...labels, state: 'completed' })).toBe(1);
    expect(metricSum(text, 'mesh_rollout_state', labels)).toBe(1);
    expect(metricSum(text, 'mesh_rollout_step', labels)).toBe(3);
    expect(metricSum(text, 'mesh_rollout_new_version_weight', labels)).toBe(100);
    const { leader, standby } = await roles();
    const leaderText = (await call(leader.urls.http!, 'GET', '/metrics')).body as string;
    const standbyText = (await call(standby.urls.http!, 'GET', '/metrics')).body as string;
    // One pass per step and one for the bake (a conflicting save may re-evaluate one).
    expect(
      metricSum(leaderText, 'mesh_rollout_gate_evaluations_total', { result: 'pass' }),
    ).toBeGreaterThanOrEqual(4);
    expect(metricSum(leaderText, 'mesh_rollout_gate_evaluations_total', { result: 'fail' })).toBe(
      0,
    );
    expect(metricSum(leaderText, 'mesh_coordinator_leader')).toBe(1);
    expect(metricSum(standbyText, 'mesh_coordinator_leader')).toBe(0);
  });

  it('rolls a version that fails every request back at its first failed gate, weights restored', async () => {
    const load = startLoad(routerUrls);
    const created = await createRollout(coordinatorUrl(), {
      task: TASK,
      model: MODEL,
      toVersion: BAD_VERSION,
      steps: [
        { weight: 30, holdSeconds: 60 },
        { weight: 100, holdSeconds: 60 },
      ],
      gates: { maxErrorRate: 0.05, minRequests: 3 },
    });
    const done = await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'rolled_back',
      'rolled back',
    );
    const answers = await load.stop();

    expect(transitions(done)).toEqual([
      'loading',
      'waiting_for_window',
      'canary:1',
      'rolling_back',
      'rolled_back',
    ]);
    const gate = done.timeline.find((e) => e.to === 'rolling_back')!;
    expect(gate.reason).toMatch(/^gate maxErrorRate failed: error rate [\d.]+ > 0\.05$/);
    expect(gate.step).toBe(1);
    expect(gate.metrics).toMatchObject({
      requests: expect.any(Number),
      errors: expect.any(Number),
    });
    const { requests, errors, errorRate } = gate.metrics as {
      requests: number;
      errors: number;
      errorRate: number;
    };
    expect(requests).toBeGreaterThanOrEqual(3);
    // Every predict on version 3 failed; its tokenize calls (no inference) count as requests.
    expect(errors).toBeGreaterThan(0);
    expect(errorRate).toBeGreaterThan(0.05);
    expect(errorRate).toBeCloseTo(errors / requests, 3);
    expect(done.weights).toEqual([{ version: 2, weight: 100 }]);
    expect(await routeVersions()).toEqual([{ version: 2, weight: 100 }]);
    // No predict on version 3 succeeded (tokenize calls to it do, they run no inference).
    const predicted = answers.filter((a) => a.path === '/v1/predict' && a.status === 200);
    expect(predicted.some((a) => a.version === BAD_VERSION)).toBe(false);
    expect(undeclared(answers)).toEqual([]);
    expect(failures(answers).length).toBeGreaterThan(0);
  });

  it('survives a SIGKILLed leader at canary step 2: the standby continues, the stale token is refused', async () => {
    const load = startLoad(routerUrls);
    const created = await createRollout(coordinatorUrl(), {
      task: TASK,
      model: MODEL,
      toVersion: GOOD_VERSION,
      // Routers mirror half the requests to version 4 first and report label agreement.
      shadow: { sampleRate: 0.5, holdSeconds: 2, minAgreement: 0 },
      steps: [
        { weight: 20, holdSeconds: 1 },
        { weight: 50, holdSeconds: 8 },
        { weight: 100, holdSeconds: 1 },
      ],
      gates: { maxErrorRate: 0.01 },
    });
    await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'canary' && v.step === 2,
      'canary step 2',
    );
    const before = await roles();
    const successor = before.standbyId;
    await before.leader.stop('SIGKILL');

    const after = await pollUntil(
      async () => {
        const lease = await leaseHolder();
        return lease?.holder === successor ? lease : undefined;
      },
      { timeoutMs: 60_000, what: `${successor} to take the lease` },
    );
    expect(after.token).toBeGreaterThan(before.token);
    const done = await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'completed',
      `completed on ${successor}`,
    );
    const answers = await load.stop();

    // Every step exactly once, in order: nothing repeated or skipped across the takeover.
    expect(transitions(done)).toEqual([
      'loading',
      'waiting_for_window',
      'shadow',
      'canary:1',
      'canary:2',
      'canary:3',
      'baking',
      'promoted',
      'draining',
      'completed',
    ]);
    const verdict = done.timeline.find((e) => e.from === 'shadow')!;
    expect(verdict.reason).toMatch(/^shadow agreement [\d.]+ over \d+ mirrored items ≥ 0;/);
    const measured = verdict.metrics as { compared: number; agreed: number; agreement: number };
    expect(measured.compared).toBeGreaterThan(0);
    expect(measured.agreed).toBeLessThanOrEqual(measured.compared);
    expect(measured.agreement).toBeCloseTo(measured.agreed / measured.compared, 3);
    expect((await table.load())!.routes.find((r) => r.task === TASK)?.shadow).toBeUndefined();
    expect(await routeVersions()).toEqual([{ version: GOOD_VERSION, weight: 100 }]);
    expect(failures(answers)).toEqual([]);
    expect(undeclared(answers)).toEqual([]);

    // The killed leader's token can no longer write the routing table.
    const epoch = (await table.load())!.epoch;
    await expect(
      table.upsertRoute(
        { tenant: '*', task: TASK, model: MODEL, versions: [{ version: 1, weight: 100 }] },
        { who: 'rollout:stale', fence: { leaseKey: keys.leaderLease, token: before.token } },
      ),
    ).rejects.toBeInstanceOf(FencedWriteError);
    expect((await table.load())!.epoch).toBe(epoch);
    expect(await routeVersions()).toEqual([{ version: GOOD_VERSION, weight: 100 }]);
  });

  it('reloads the desired versions onto a host that restarted mid-rollout', async () => {
    const created = await createRollout(coordinatorUrl(), {
      task: TASK,
      model: MODEL,
      toVersion: 2,
      steps: [
        { weight: 50, holdSeconds: 600 },
        { weight: 100, holdSeconds: 1 },
      ],
    });
    await waitForRollout(coordinatorUrl, created.id, (v) => v.state === 'canary', 'canary step 1');
    await hosts[1]!.stop('SIGKILL');
    // Back on the same address with nothing loaded (explicit mode, no --load-model).
    hosts[1] = await startHost(repo, grpcPorts[1]!, false);
    const states = await pollUntil(
      async () => {
        const index = await repositoryIndex(hosts[1]!);
        const now = [2, 4].map((v) => stateOf(index, v));
        return now.join() === 'READY,READY' ? index : undefined;
      },
      { timeoutMs: 60_000, what: 'the restarted host to serve versions 2 and 4 again' },
    );
    expect([1, 3].map((v) => stateOf(states, v)).includes('READY')).toBe(false);
    // The only coordinator left since the previous test killed the leader.
    const { leader } = await roles();
    const reconciled = leader.logs.filter(
      (l) => l.includes('"event":"reconcile"') && l.includes(`127.0.0.1:${grpcPorts[1]}`),
    );
    expect(reconciled.length).toBeGreaterThan(0);

    expect(
      (await call(coordinatorUrl(), 'POST', `/v1/rollouts/${created.id}/promote`, { key: ADMIN }))
        .status,
    ).toBe(202);
    const done = await waitForRollout(
      coordinatorUrl,
      created.id,
      (v) => v.state === 'completed',
      'completed',
    );
    expect(done.timeline.find((e) => e.to === 'promoted')?.reason).toBe('promoted by operator');
    for (const host of hosts) {
      const index = await repositoryIndex(host);
      expect([stateOf(index, 2), stateOf(index, GOOD_VERSION)]).toEqual([
        'READY',
        'UNAVAILABLE/unloaded',
      ]);
    }
    expect((await getRollout(coordinatorUrl(), created.id)).weights).toEqual([
      { version: 2, weight: 100 },
    ]);
  });
  it('undoes the last completed rollout under load: the retired version is READY again before any traffic moves, 0 failed', async () => {
    const { body: list } = await call<{ rollouts: RolloutView[] }>(
      coordinatorUrl(),
      'GET',
      '/v1/rollouts',
      { key: ADMIN },
    );
    // The previous test's rollout: version GOOD_VERSION → 2, completed, GOOD_VERSION retired.
    const last = list.rollouts.find((r) => r.state === 'completed')!;
    expect(last.weights).toEqual([{ version: 2, weight: 100 }]);
    for (const host of hosts) {
      expect(stateOf(await repositoryIndex(host), GOOD_VERSION)).toBe('UNAVAILABLE/unloaded');
    }

    const load = startLoad(routerUrls);
    await pollUntil(() => (load.answers.length >= 20 ? true : undefined), {
      timeoutMs: 60_000,
      what: 'load on version 2',
    });
    const undo = await call<RolloutView>(coordinatorUrl(), 'POST', `/v1/rollouts/${last.id}/undo`, {
      key: ADMIN,
    });
    expect(undo.status).toBe(201);
    expect(undo.body).toMatchObject({
      state: 'pending',
      undoOf: last.id,
      finalWeights: [{ version: GOOD_VERSION, weight: 100 }],
    });
    const done = await waitForRollout(
      coordinatorUrl,
      undo.body.id,
      (v) => v.state === 'completed',
      'the undo completed',
    );
    const answers = await load.stop();

    expect(failures(answers)).toEqual([]);
    expect(undeclared(answers)).toEqual([]);
    expect(transitions(done)).toEqual([
      'loading',
      'waiting_for_window',
      'canary:1',
      'baking',
      'promoted',
      'draining',
      'completed',
    ]);
    // Loaded everywhere and routable on every router before the one step moved traffic.
    expect(done.timeline[1]?.reason).toBe(
      `version ${GOOD_VERSION} ready on every backend and routable on every router`,
    );
    expect(done.timeline.at(-1)?.reason).toBe('retired version 2 on every backend');
    expect(await routeVersions()).toEqual([{ version: GOOD_VERSION, weight: 100 }]);
    for (const host of hosts) {
      const index = await repositoryIndex(host);
      expect([stateOf(index, 2), stateOf(index, GOOD_VERSION)]).toEqual([
        'UNAVAILABLE/unloaded',
        'READY',
      ]);
    }
    expect((await getRollout(coordinatorUrl(), last.id)).undoneBy).toBe(undo.body.id);
  });

  it('refuses to undo after a later edit of the route (409 ROUTE_CHANGED) unless forced', async () => {
    const { body: list } = await call<{ rollouts: RolloutView[] }>(
      coordinatorUrl(),
      'GET',
      '/v1/rollouts',
      { key: ADMIN },
    );
    const lastUndo = list.rollouts.find((r) => r.state === 'completed' && r.undoOf)!;
    // An operator re-applies the route by hand: same weights, but an audited edit.
    const { epoch } = await table.upsertRoute(
      { tenant: '*', task: TASK, model: MODEL, versions: [{ version: GOOD_VERSION, weight: 100 }] },
      { who: 'admin:e2e' },
    );
    const refused = await call(coordinatorUrl(), 'POST', `/v1/rollouts/${lastUndo.id}/undo`, {
      key: ADMIN,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ROUTE_CHANGED');
    expect(refused.body.error.message).toContain(`epoch ${epoch} route.upsert by admin:e2e`);
    // Nothing started: the route has no active rollout.
    expect(await routeVersions()).toEqual([{ version: GOOD_VERSION, weight: 100 }]);

    const forced = await call<RolloutView>(
      coordinatorUrl(),
      'POST',
      `/v1/rollouts/${lastUndo.id}/undo?force=true`,
      { key: ADMIN },
    );
    expect(forced.status).toBe(201);
    expect(forced.body).toMatchObject({
      undoOf: lastUndo.id,
      finalWeights: [{ version: 2, weight: 100 }],
    });
    // One rollout per route: a second undo waits for this one; then it is aborted.
    const second = await call(
      coordinatorUrl(),
      'POST',
      `/v1/rollouts/${lastUndo.id}/undo?force=true`,
      {
        key: ADMIN,
      },
    );
    expect([second.status, second.body.error.code]).toEqual([409, 'ROLLOUT_CONFLICT']);
    const bad = await call(coordinatorUrl(), 'POST', `/v1/rollouts/${lastUndo.id}/undo?force=yes`, {
      key: ADMIN,
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(bad.body.error.message).toContain('force');
    expect(
      (await call(coordinatorUrl(), 'POST', `/v1/rollouts/${forced.body.id}/abort`, { key: ADMIN }))
        .status,
    ).toBe(202);
    await waitForRollout(coordinatorUrl, forced.body.id, (v) => v.state === 'aborted', 'aborted');
  });
});
