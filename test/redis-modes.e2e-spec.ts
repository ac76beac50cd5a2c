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
} from './bulk-jobs.helpers';
import { call } from './router-e2e.helpers';
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
} from './rollout-e2e.helpers';
import { uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';
import { RedisClusterHarness } from './support/redis-servers';

/**
 * The three uses on a Redis Cluster (3 primaries + 3 replicas started by this file on loopback):
 * router, batch worker and coordinator name only REDIS_CLUSTER_NODES, so every key, script,
 * pub/sub channel and BullMQ queue goes through the cluster. Nothing here measures time.
 */
jest.setTimeout(240_000);

const prefix = uniquePrefix(__filename);
const ITEMS = 10_000;
const saved = { url: process.env.REDIS_URL, nodes: process.env.REDIS_CLUSTER_NODES };
let cluster: RedisClusterHarness;
let redis: RedisClient;
let repo: string;
const apps: StartedApp[] = [];
let routerUrl: string;
let coordinatorUrl: string;

beforeAll(async () => {
  cluster = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
  if (cluster.endpoint.mode !== 'cluster') throw new Error('not a cluster');
  // Every app this file starts inherits these: cluster mode, no standalone URL (empty = unset).
  process.env.REDIS_URL = '';
  process.env.REDIS_CLUSTER_NODES = cluster.endpoint.nodes.map(formatHostPort).join(',');
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
  redis = createRedis('commands', { endpoint: cluster.endpoint, name: 'redis-cluster-e2e' });
  await pollUntil(
    async () => ((await fetch(`${routerUrl}/healthz/ready`)).status === 200 ? true : undefined),
    { timeoutMs: 60_000, what: 'the router ready on the cluster' },
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop('SIGKILL')));
  if (redis) await closeRedis(redis);
  await cluster?.stop();
  if (repo) rmSync(repo, { recursive: true, force: true });
  for (const [name, value] of [
    ['REDIS_URL', saved.url],
    ['REDIS_CLUSTER_NODES', saved.nodes],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('the mesh on a Redis Cluster', () => {
  it('answers a predict from a routing table stored on the cluster', async () => {
    const res = await call(routerUrl, 'POST', '/v1/predict', {
      key: TENANT_KEY,
      body: { task: TASK, text: '这个问题是什么意思' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: MODEL, version: 1, label: expect.any(String) });
    // The table and its epoch live on the cluster (one slot, `{routes}`).
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
      'completed on the cluster',
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
