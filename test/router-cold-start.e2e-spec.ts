import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { PlacementKeys } from '@mesh/placement';
import { RedisTrafficSignalSource } from '@mesh/signals';
import {
  ADMIN_KEY,
  call,
  grpcCall,
  hostPort,
  metricSum,
  predictorClient,
} from './support/router-mesh';
import { ROOT, startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

/**
 * Cold starts end to end: a model host in explicit control mode holds `sentiment-en` only; a
 * route gives all of its weight to `sentiment-cold` v1, which is in the repository (so the
 * router's catalog verifies its manifest) but resident on no backend. The test plays the
 * placer: it loads the version through the host's RepositoryModelLoad and announces it.
 */
jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
const KEY = 'cold-start-e2e-key';
const COLD = 'sentiment-cold';
/** Long enough for a load on a busy 2-core machine; the timeout case waits it out once. */
const WAIT_MS = 12_000;
const BUCKET_MS = 1000;
const keys = new PlacementKeys(prefix);
let repo: string;
let host: StartedApp;
let router: StartedApp;
let redis: RedisClient;
/** Before any request of this file: where the traffic-signal reads start. */
const startedAt = Date.now();

const http = () => router.urls.http!;
const admin = (method: string, path: string, body?: unknown) =>
  call(http(), method, `/v1/admin${path}`, { key: ADMIN_KEY, body });
const predict = (text: string) =>
  call(http(), 'POST', '/v1/predict', { key: KEY, body: { task: 'cold', text } });

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'router-cold-'));
  const source = join(ROOT, 'model_repository', 'sentiment-en');
  cpSync(source, join(repo, 'sentiment-en'), { recursive: true });
  // The same files under another name: a second model the host does not load at start.
  cpSync(source, join(repo, COLD), { recursive: true });
  const config = join(repo, COLD, 'config.pbtxt');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace('name: "sentiment-en"', `name: "${COLD}"`),
  );
  host = await startApp(
    'model-host',
    {
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      MODEL_REPOSITORY: repo,
    },
    {
      listeners: ['http', 'grpc', 'metrics'],
      args: ['--model-control-mode=explicit', '--load-model=sentiment-en'],
      timeoutMs: 60_000,
    },
  );
  router = await startApp(
    'router',
    {
      ROUTER_HTTP_PORT: '0',
      ROUTER_GRPC_PORT: '0',
      ROUTER_ID: 'router-cold',
      REDIS_KEY_PREFIX: prefix,
      MODEL_REPOSITORY: repo,
      KSERVE_ENDPOINTS: hostPort(host.urls.grpc!),
      MESH_CONFIG: join(ROOT, 'deploy', 'config', 'mesh.yaml'),
      ADMIN_API_KEY: ADMIN_KEY,
      KSERVE_HEALTH_INTERVAL_MS: '1000',
      ROUTER_COLD_START_WAIT_MS: String(WAIT_MS),
      ROUTER_SIGNAL_BUCKET_MS: String(BUCKET_MS),
      ROUTER_SIGNAL_FLUSH_MS: '200',
    },
    { listeners: ['http', 'grpc'] },
  );
  await pollUntil(
    async () => ((await fetch(`${http()}/healthz/ready`)).status === 200 ? true : undefined),
    { timeoutMs: 30_000, what: 'router readiness' },
  );
  redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'router-cold-e2e' });
  const tenant = await admin('PUT', '/tenants', {
    name: 'cold',
    keySha256: [createHash('sha256').update(KEY).digest('hex')],
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 1000, burst: 1000 },
    maxInFlight: 64,
  });
  expect(tenant.status).toBe(200);
  // No force: the version is in the repository, only not resident anywhere.
  const route = await admin('PUT', '/routes', {
    tenant: 'cold',
    task: 'cold',
    model: COLD,
    versions: [{ version: 1, weight: 1 }],
  });
  expect(route.status).toBe(200);
  expect(route.body.unroutable['1']).toContain('READY');
}, 180_000);

afterAll(async () => {
  await router?.stop('SIGKILL');
  await host?.stop('SIGKILL');
  rmSync(repo, { recursive: true, force: true });
  if (redis) {
    const left = await redis.keys(`${prefix}*`);
    if (left.length > 0) await redis.del(...left);
    await closeRedis(redis);
  }
});

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return metricSum(await (await fetch(`${http()}/metrics`)).text(), name, labels);
}

describe('router cold starts', () => {
  it('answers 503 MODEL_LOADING with Retry-After (gRPC UNAVAILABLE) when the load outlasts the wait, having asked for it', async () => {
    const client = predictorClient(hostPort(router.urls.grpc!));
    try {
      const [h, g] = await Promise.all([
        predict('nobody loads me'),
        grpcCall(
          client,
          'Predict',
          { task: 'cold', text: 'nor me' },
          { authorization: `Bearer ${KEY}` },
        ),
      ]);
      expect(h.status).toBe(503);
      expect(h.body.error.code).toBe('MODEL_LOADING');
      expect(h.body.error.message).toContain(`model '${COLD}' version 1`);
      expect(Number(h.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(g.error?.code).toBe(14); // UNAVAILABLE
      expect(g.error?.metadata.get('x-mesh-error-code')).toEqual(['MODEL_LOADING']);
      expect(g.error?.metadata.get('retry-after')).toHaveLength(1);
    } finally {
      client.close();
    }
    // One demand for the version, recorded by this router.
    const demand = JSON.parse((await redis.hget(keys.demand(), `${COLD}@1`))!);
    expect(demand.by).toBe('router-cold');
    expect(
      await metric('mesh_router_cold_start_wait_seconds_count', {
        model: COLD,
        outcome: 'timeout',
      }),
    ).toBe(2);
  });

  it('answers 200 from the version once a backend serves it mid-wait, and counts no error', async () => {
    await redis.del(keys.demand());
    const answer = predict('a good day');
    // The request is waiting once its demand is in Redis: now the "placer" loads the version.
    await pollUntil(
      async () => ((await redis.hget(keys.demand(), `${COLD}@1`)) ? true : undefined),
      {
        what: 'the cold-start demand',
      },
    );
    const load = await fetch(`${host.urls.http}/v2/repository/models/${COLD}/load`, {
      method: 'POST',
    });
    expect(load.status).toBe(200);
    await redis.publish(keys.loadedChannel(), `${COLD}@1@${hostPort(host.urls.grpc!)}`);
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ model: COLD, version: 1 });
    expect(
      await metric('mesh_router_cold_start_wait_seconds_count', { model: COLD, outcome: 'loaded' }),
    ).toBe(1);
    // Resident now: the next request is answered without a wait.
    expect((await predict('again')).status).toBe(200);
    expect(
      await metric('mesh_router_cold_start_wait_seconds_count', { model: COLD, outcome: 'loaded' }),
    ).toBe(1);
    // The traffic signals count the two answers and no error (the 503s were not the version's).
    const signals = new RedisTrafficSignalSource(redis, { keyPrefix: prefix, bucketMs: BUCKET_MS });
    const read = () =>
      signals.read({
        task: 'cold',
        model: COLD,
        version: 1,
        fromMs: startedAt,
        toMs: Date.now() + 1,
      });
    const v1 = await pollUntil(async () => ((await read()).requests >= 2 ? read() : undefined), {
      timeoutMs: 20_000,
      what: 'signals flushed',
    });
    expect([v1.requests, v1.errors]).toEqual([2, 0]);
  });
});
