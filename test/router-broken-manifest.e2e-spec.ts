/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON is untyped by nature */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis } from '@mesh/config';
import { pendingRequests } from './support/model-host-fixtures';
import { ROOT, startApp, uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ACME_KEY,
  ADMIN_KEY,
  call,
  grpcCall,
  hostPort,
  metricSum,
  predictorClient,
  startMesh,
  type Mesh,
} from './support/router-mesh';

jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);
const KEY = 'broken-manifest-key';
const BAD_SHA = 'f'.repeat(64);
let repo: string;
let mesh: Mesh;

/** Rewrites one version's preprocess.json in the temp copy of the repository. */
function editManifest(model: string, version: number, edit: (m: any) => void): void {
  const file = join(repo, model, String(version), 'preprocess.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  edit(manifest);
  writeFileSync(file, JSON.stringify(manifest, null, 2));
}

const hostMetrics = async (model: string, version: number) => {
  const text = await (await fetch(`${mesh.host.urls.metrics}/metrics`)).text();
  return {
    success: metricSum(text, 'nv_inference_request_success', { model, version: String(version) }),
    failure: metricSum(text, 'nv_inference_request_failure', { model, version: String(version) }),
  };
};

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'router-broken-'));
  cpSync(join(ROOT, 'model_repository'), repo, { recursive: true });
  // The tokenizer file no longer matches the pin: the version's preprocessing is unusable.
  editManifest('question-type-zh', 2, (m) => (m.tokenizer.sha256 = BAD_SHA));
  // The manifest names other model bytes than the backend serves (its config.pbtxt is intact).
  editManifest('intent-zh', 1, (m) => (m.model.sha256 = BAD_SHA));
  mesh = await startMesh(prefix, { repository: repo });
  const admin = (path: string, body: unknown) =>
    call(mesh.http, 'PUT', `/v1/admin${path}`, { key: ADMIN_KEY, body });
  expect(
    (
      await admin('/tenants', {
        name: 'broken',
        keySha256: [createHash('sha256').update(KEY).digest('hex')],
        allowedTasks: ['*'],
        rateLimit: { requestsPerSecond: 1000, burst: 1000 },
        maxInFlight: 16,
      })
    ).status,
  ).toBe(200);
  for (const [task, model, version] of [
    ['bad-tokenizer', 'question-type-zh', 2],
    ['bad-model-bytes', 'intent-zh', 1],
    ['mixed', 'question-type-zh', 0],
  ] as const) {
    const versions =
      version === 0
        ? [
            { version: 1, weight: 50 },
            { version: 2, weight: 50 },
          ]
        : [{ version, weight: 1 }];
    // Forced: a route to a version whose manifest fails is refused (422) without it.
    const path = '/routes?force=true';
    expect((await admin(path, { tenant: 'broken', task, model, versions })).status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  rmSync(repo, { recursive: true, force: true });
  const redis = createRedis('commands', {
    url: 'redis://127.0.0.1:6379',
    name: 'router-broken-e2e',
  });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('a version whose manifest does not match', () => {
  it('gets 503 naming the tokenizer sha256 mismatch, and nothing reaches the host', async () => {
    const before = await hostMetrics('question-type-zh', 2);
    for (let i = 0; i < 5; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: KEY,
        body: { task: 'bad-tokenizer', text: '为什么' },
      });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('BACKEND_UNAVAILABLE');
      expect(r.body.error.message).toContain('TOKENIZER_SHA_MISMATCH');
      expect(r.body.error.details.reasons[0].reason).toContain(BAD_SHA);
    }
    const batch = await call(mesh.http, 'POST', '/v1/predict:batch', {
      key: KEY,
      body: { task: 'bad-tokenizer', texts: ['a', 'b'] },
    });
    expect(batch.status).toBe(503);
    const client = predictorClient(mesh.grpcAddress);
    try {
      const g = await grpcCall(
        client,
        'Predict',
        { task: 'bad-tokenizer', text: 'x' },
        { authorization: `Bearer ${KEY}` },
      );
      expect(g.error?.code).toBe(14);
      expect(g.error?.details).toContain('TOKENIZER_SHA_MISMATCH');
    } finally {
      client.close();
    }
    expect(await hostMetrics('question-type-zh', 2)).toEqual(before);
  });

  it('gets 503 when the backend serves other model bytes than the manifest names', async () => {
    const before = await hostMetrics('intent-zh', 1);
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: KEY,
      body: { task: 'bad-model-bytes', text: '你好' },
    });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toContain('model sha256 mismatch');
    expect(r.body.error.message).toContain(BAD_SHA);
    expect(await hostMetrics('intent-zh', 1)).toEqual(before);
  });

  it('sends a mixed route only to the healthy version', async () => {
    const before = await hostMetrics('question-type-zh', 2);
    for (let i = 0; i < 20; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: KEY,
        body: { task: 'mixed', text: `问题${i}` },
      });
      expect(r.status).toBe(200);
      expect(r.body.version).toBe(1);
    }
    expect(await hostMetrics('question-type-zh', 2)).toEqual(before);
  });

  it('lists the reason per version on the admin routes view', async () => {
    const r = await call(mesh.http, 'GET', '/v1/admin/routes', { key: ADMIN_KEY });
    const route = (r.body.routes as any[]).find((x) => x.task === 'bad-tokenizer');
    expect(route.unroutable['2']).toContain('TOKENIZER_SHA_MISMATCH');
  });
});

describe('routing table persistence', () => {
  it('keeps admin edits across a router restart (mesh.yaml seeds only an absent table)', async () => {
    const second = await startApp(
      'router',
      {
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        REDIS_KEY_PREFIX: prefix,
        MODEL_REPOSITORY: repo,
        KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
        ADMIN_API_KEY: ADMIN_KEY,
      },
      { listeners: ['http', 'grpc'] },
    );
    try {
      const tasks = await call(second.urls.http!, 'GET', '/v1/tasks', { key: KEY });
      expect(tasks.status).toBe(200);
      expect((tasks.body.tasks as any[]).map((t) => t.task)).toContain('bad-tokenizer');
    } finally {
      await second.stop('SIGKILL');
    }
  });

  it('replaces the table with mesh.yaml on an explicit reseed, audited', async () => {
    const before = await call(mesh.http, 'GET', '/v1/admin/table', { key: ADMIN_KEY });
    const r = await call(mesh.http, 'POST', '/v1/admin/reseed', { key: ADMIN_KEY });
    expect(r.status).toBe(200);
    expect(r.body.epoch).toBeGreaterThan(before.body.epoch);
    expect((await call(mesh.http, 'GET', '/v1/tasks', { key: KEY })).status).toBe(401);
    const audit = await call(mesh.http, 'GET', '/v1/admin/audit?limit=1', { key: ADMIN_KEY });
    expect(audit.body.entries[0]).toMatchObject({ action: 'reseed', who: 'admin' });
  });
});

describe('shutdown', () => {
  it('finishes in-flight requests, then stops with exit code 0 on SIGTERM', async () => {
    const inFlight = call(mesh.http, 'POST', '/v1/predict:batch', {
      key: ACME_KEY,
      // Full-length texts keep the host busy for a while however fast the CPU is.
      body: {
        task: 'intent',
        texts: Array.from({ length: 200 }, (_, i) => `请求${i}${'今天的天气怎么样'.repeat(20)}`),
      },
    });
    // SIGTERM only once the router's work has reached the host, so it is really in flight.
    await Promise.race([
      pollUntil(
        async () =>
          (await pendingRequests(mesh.host.urls.metrics!, 'intent-zh')) > 0 ? true : undefined,
        { what: 'the batch to be in flight on the host', intervalMs: 5 },
      ),
      inFlight.then((r) => {
        throw new Error(
          `answered before it was seen in flight: ${r.status} ${JSON.stringify(r.body)}`,
        );
      }),
    ]);
    const stopped = mesh.router.stop('SIGTERM');
    const answer = await inFlight;
    expect(answer.body).toMatchObject({ model: 'intent-zh' });
    expect(answer.status).toBe(200);
    expect(answer.body.results).toHaveLength(200);
    const code = await stopped;
    // The log tail explains a non-zero exit in the failure message.
    if (code !== 0) throw new Error(`exit ${code}:\n${mesh.router.logs.slice(-4).join('\n')}`);
    expect(mesh.router.logs.some((l) => l.includes('"event":"stopped"'))).toBe(true);
  });
});
