import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRedis, createRedis, formatHostPort, type RedisClient } from '@mesh/config';
import { JobKeys } from '@mesh/jobs';
import { routingKeys } from '@mesh/routing';
import {
  ndjsonOf,
  resultProblems,
  results,
  startWorker,
  submitNdjson,
  waitForState,
} from './support/bulk-jobs';
import { call } from './support/router-mesh';
import {
  ADMIN,
  MODEL,
  TASK,
  TENANT_KEY,
  createRollout,
  freePort,
  startCoordinator,
  startHost,
  startRouter,
  waitForRollout,
  writeRolloutRepository,
} from './support/rollout-mesh';
import { uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';
import { RedisClusterHarness, RedisSentinelHarness } from './support/redis-servers';

/**
 * The three uses on a Redis Cluster (3 primaries + 3 replicas) or a Sentinel-managed Redis
 * (primary, replica, 3 Sentinels), started by this file on loopback: router, batch worker and
 * coordinator name only that mode's variables, so every key, script, pub/sub channel and BullMQ
 * queue goes through it. `npm test` runs the cluster; `npm run test:redis-modes` runs every
 * mode (MESH_E2E_REDIS_MODE). Nothing here measures time.
 */
jest.setTimeout(240_000);

const MODE = process.env.MESH_E2E_REDIS_MODE ?? 'cluster';
// Its keys live on the cluster / Sentinel setup this file starts and stops.
const prefix = uniquePrefix(__filename, undefined, { ownServer: true });
const ITEMS = 10_000;
const VARIABLES = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER'];
const saved = new Map(VARIABLES.map((v) => [v, process.env[v]]));
let topology: RedisClusterHarness | RedisSentinelHarness;
let redis: RedisClient;
let repo: string;
const apps: StartedApp[] = [];
let routerUrl: string;
let coordinatorUrl: string;

/** Starts the mode's servers and points every app this file starts at them (empty = unset). */
async function startRedis(): Promise<void> {
  for (const v of VARIABLES) process.env[v] = '';
  if (MODE === 'cluster') {
    topology = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
    if (topology.endpoint.mode !== 'cluster') throw new Error('not a cluster');
    process.env.REDIS_CLUSTER_NODES = topology.endpoint.nodes.map(formatHostPort).join(',');
  } else if (MODE === 'sentinel') {
    topology = await RedisSentinelHarness.start();
    if (topology.endpoint.mode !== 'sentinel') throw new Error('not a Sentinel setup');
    process.env.REDIS_SENTINELS = topology.endpoint.sentinels.map(formatHostPort).join(',');
    process.env.REDIS_SENTINEL_MASTER = topology.endpoint.masterName;
  } else {
    throw new Error(`MESH_E2E_REDIS_MODE must be cluster or sentinel (got '${MODE}')`);
  }
}

beforeAll(async () => {
  await startRedis();
  repo = mkdtempSync(join(tmpdir(), 'redis-cluster-e2e-'));
  const seed = await writeRolloutRepository(repo);
  const backends = `127.0.0.1:${await freePort()}`;
  apps.push(await startHost(repo, Number(backends.split(':')[1])));
  const router = await startRouter('router-a', prefix, repo, seed, backends);
  apps.push(router);
  routerUrl = router.urls.http!;
  apps.push(
    await startWorker({
      REDIS_KEY_PREFIX: prefix,
      KSERVE_ENDPOINTS: backends,
      MODEL_REPOSITORY: repo,
    }),
  );
  const coordinator = await startCoordinator('coord-a', prefix, repo, backends);
  apps.push(coordinator);
  coordinatorUrl = coordinator.urls.http!;
  redis = createRedis('commands', { endpoint: topology.endpoint, name: 'redis-modes-e2e' });
  await pollUntil(
    async () => ((await fetch(`${routerUrl}/healthz/ready`)).status === 200 ? true : undefined),
    { timeoutMs: 60_000, what: `the router ready on ${MODE}` },
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop('SIGKILL')));
  if (redis) await closeRedis(redis);
  await topology?.stop();
  if (repo) rmSync(repo, { recursive: true, force: true });
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe(`the mesh on Redis (${MODE})`, () => {
  it('answers a predict from a routing table stored there', async () => {
    const res = await call(routerUrl, 'POST', '/v1/predict', {
      key: TENANT_KEY,
      body: { task: TASK, text: '这个问题是什么意思' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: MODEL, version: 1, label: expect.any(String) });
    // The table and its epoch live there (one slot on a cluster, `{routes}`).
    expect(await redis.exists(routingKeys(prefix).table)).toBe(1);
    // Each app checked the primaries at boot: policy fine, persistence off is one warning.
    for (const app of apps.filter((a) => a.name !== 'model-host')) {
      expect(app.logs.join('\n')).not.toContain('maxmemory-policy');
    }
  });

  it(`runs a ${ITEMS}-item bulk job: every item exactly once, in order`, async () => {
    const submitted = await submitNdjson(routerUrl, TENANT_KEY, TASK, ndjsonOf(ITEMS));
    expect(submitted.status).toBe(202);
    const id = submitted.body.jobId as string;
    const done = await waitForState(routerUrl, TENANT_KEY, id, ['completed', 'failed'], 180_000);
    expect(done).toMatchObject({ state: 'completed', total: ITEMS, processed: ITEMS });
    const lines = await results(routerUrl, TENANT_KEY, id);
    expect(
      resultProblems(lines, ITEMS, { model: MODEL, version: 1, pipeline: 'bert-wordpiece@1' }),
    ).toEqual([]);
    // The job's keys share the job's own slot.
    expect(await redis.exists(new JobKeys(prefix).meta(id))).toBe(1);
  });

  it('rolls the route to version 2 to completion, then shows it on the dashboard', async () => {
    const created = await createRollout(coordinatorUrl, {
      task: TASK,
      model: MODEL,
      toVersion: 2,
      steps: [
        { weight: 50, holdSeconds: 1 },
        { weight: 100, holdSeconds: 1 },
      ],
      bakeSeconds: 1,
    });
    const done = await waitForRollout(
      () => coordinatorUrl,
      created.id,
      (v) => v.state === 'completed',
      `completed on ${MODE}`,
    );
    expect(done.weights).toEqual([{ version: 2, weight: 100 }]);

    const routes = await call(coordinatorUrl, 'GET', '/v1/dashboard/routes', { key: ADMIN });
    expect(routes.status).toBe(200);
    expect(JSON.stringify(routes.body)).toContain(TASK);
    const rollouts = await call(coordinatorUrl, 'GET', '/v1/dashboard/rollouts', { key: ADMIN });
    expect(rollouts.status).toBe(200);
    expect(JSON.stringify(rollouts.body)).toContain(created.id);
    const jobs = await call(coordinatorUrl, 'GET', '/v1/dashboard/jobs', { key: ADMIN });
    expect(jobs.status).toBe(200);
    expect(JSON.stringify(jobs.body)).toContain('completed');
  });
});
