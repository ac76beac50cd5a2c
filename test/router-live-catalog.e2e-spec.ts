/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON bodies are untyped */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import {
  RedisTrafficSignalSource,
  RouterHeartbeatRepository,
  type RouterHeartbeat,
} from '@mesh/signals';
import { ADMIN_KEY, call, hostPort } from './support/router-mesh';
import { ROOT, startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

/**
 * Live catalog, heartbeats, traffic signals and checked route edits, end to end: one model
 * host in explicit control mode, two routers sharing one Redis prefix.
 */
// Model loads and discovery rounds on a shared machine: generous per-test deadline.
jest.setTimeout(90_000);

const prefix = uniquePrefix(__filename);
const KEY = 'live-catalog-e2e-key';
const MODEL = 'sentiment-en';
const BUCKET_MS = 1000;
let repo: string;
let host: StartedApp;
const routers: StartedApp[] = [];
let redis: RedisClient;
let heartbeats: RouterHeartbeatRepository;
let signals: RedisTrafficSignalSource;

const urlOf = (i: number) => routers[i]!.urls.http!;
const admin = (method: string, path: string, body?: unknown) =>
  call(urlOf(0), method, `/v1/admin${path}`, { key: ADMIN_KEY, body });
const predict = (i: number, task: string, text: string) =>
  call(urlOf(i), 'POST', '/v1/predict', { key: KEY, body: { task, text } });
const route = (task: string, versions: { version: number; weight: number }[]) => ({
  tenant: 'live',
  task,
  model: MODEL,
  versions,
});

function hostLoad(): Promise<Response> {
  return fetch(`${host.urls.http}/v2/repository/models/${MODEL}/load`, { method: 'POST' });
}

function routableOn(hb: RouterHeartbeat, version: number): boolean {
  return hb.routable.some((r) => r.model === MODEL && r.version === version);
}

/** Both routers' heartbeats, once `check` holds for each of them. */
function bothHeartbeats(what: string, check: (hb: RouterHeartbeat) => boolean) {
  return pollUntil(
    async () => {
      const live = await heartbeats.readLive();
      return live.length === 2 && live.every(check) ? live : undefined;
    },
    { timeoutMs: 30_000, what },
  );
}

/** Writes a route and waits until both routers have applied its epoch (their heartbeats). */
async function putRoute(body: unknown, query = ''): Promise<{ status: number; body: any }> {
  const r = await admin('PUT', `/routes${query}`, body);
  if (r.status === 200) {
    const epoch = r.body.epoch as number;
    await bothHeartbeats(`both routers at epoch ${epoch}`, (hb) => hb.epoch >= epoch);
  }
  return r;
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'router-live-'));
  cpSync(join(ROOT, 'model_repository', MODEL), join(repo, MODEL), { recursive: true });
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
      args: ['--model-control-mode=explicit', `--load-model=${MODEL}`],
      timeoutMs: 60_000,
    },
  );
  for (const id of ['router-a', 'router-b']) {
    routers.push(
      await startApp(
        'router',
        {
          ROUTER_HTTP_PORT: '0',
          ROUTER_GRPC_PORT: '0',
          ROUTER_ID: id,
          REDIS_KEY_PREFIX: prefix,
          MODEL_REPOSITORY: repo,
          KSERVE_ENDPOINTS: hostPort(host.urls.grpc!),
          MESH_CONFIG: join(ROOT, 'deploy', 'config', 'mesh.yaml'),
          ADMIN_API_KEY: ADMIN_KEY,
          KSERVE_HEALTH_INTERVAL_MS: '200',
          ROUTER_HEARTBEAT_INTERVAL_MS: '200',
          ROUTER_SIGNAL_BUCKET_MS: String(BUCKET_MS),
          ROUTER_SIGNAL_FLUSH_MS: '200',
        },
        { listeners: ['http', 'grpc'] },
      ),
    );
  }
  redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'router-live-e2e' });
  heartbeats = new RouterHeartbeatRepository(redis, { keyPrefix: prefix });
  signals = new RedisTrafficSignalSource(redis, { keyPrefix: prefix, bucketMs: BUCKET_MS });
  const tenant = await admin('PUT', '/tenants', {
    name: 'live',
    keySha256: [createHash('sha256').update(KEY).digest('hex')],
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 100000, burst: 100000 },
    maxInFlight: 512,
  });
  expect(tenant.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await Promise.all(routers.map((r) => r.stop('SIGKILL')));
  await host?.stop('SIGKILL');
  rmSync(repo, { recursive: true, force: true });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('router heartbeats', () => {
  it('each router publishes its id, epoch and routable set', async () => {
    // The set-up's last edit bumped the epoch: a heartbeat sent before a router applied it still
    // carries the one before, so wait for both routers to publish the table's current epoch.
    const table = await admin('GET', '/table');
    const epoch = table.body.epoch as number;
    const live = await bothHeartbeats(
      `two heartbeats routing v1 at the table's epoch ${epoch}`,
      (hb) => routableOn(hb, 1) && hb.epoch === epoch,
    );
    expect(live.map((hb) => hb.routerId)).toEqual(['router-a', 'router-b']);
    expect(live.every((hb) => !routableOn(hb, 2))).toBe(true);
  });
});

describe('checked route edits', () => {
  it('refuses an unknown model, an unknown version and a failing manifest with 422', async () => {
    const epochBefore = (await admin('GET', '/table')).body.epoch as number;
    const unknownModel = await admin('PUT', '/routes', {
      ...route('checked', [{ version: 1, weight: 1 }]),
      model: 'no-such-model',
    });
    expect(unknownModel.status).toBe(422);
    expect(unknownModel.body.error.code).toBe('UNKNOWN_MODEL');
    expect(unknownModel.body.error.message).toContain("'no-such-model'");

    const unknownVersion = await admin(
      'PUT',
      '/routes',
      route('checked', [
        { version: 1, weight: 1 },
        { version: 7, weight: 1 },
      ]),
    );
    expect(unknownVersion.status).toBe(422);
    expect(unknownVersion.body.error.code).toBe('UNKNOWN_VERSION');
    expect(unknownVersion.body.error.details.problems).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_VERSION', path: 'versions[1].version' }),
    ]);

    // A version directory whose manifest pins other tokenizer bytes.
    const broken = join(repo, MODEL, '5');
    cpSync(join(repo, MODEL, '1'), broken, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(broken, 'preprocess.json'), 'utf8'));
    manifest.tokenizer.sha256 = 'f'.repeat(64);
    writeFileSync(join(broken, 'preprocess.json'), JSON.stringify(manifest));
    try {
      const badManifest = await admin('PUT', '/routes', {
        ...route('checked', [{ version: 1, weight: 1 }]),
        shadow: { version: 5 },
      });
      expect(badManifest.status).toBe(422);
      expect(badManifest.body.error.code).toBe('MANIFEST_INVALID');
      expect(badManifest.body.error.message).toContain('shadow.version');
      expect(badManifest.body.error.message).toContain('tokenizer sha256 mismatch');
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
    expect((await admin('GET', '/table')).body.epoch).toBe(epochBefore);
  });

  it('?force=true pre-stages a version, and the answer says it is unroutable and why', async () => {
    const r = await putRoute(
      route('sentiment-live', [
        { version: 1, weight: 1 },
        { version: 2, weight: 0 },
      ]),
      '?force=true',
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.unroutable)).toEqual(['2']);
    expect(r.body.unroutable['2']).toContain('no version 2');
    expect((await predict(1, 'sentiment-live', 'good')).body).toMatchObject({ version: 1 });
  });
});

describe('live catalog', () => {
  it('a version directory added and loaded at run time becomes routable on both routers', async () => {
    cpSync(join(repo, MODEL, '1'), join(repo, MODEL, '2'), { recursive: true });
    const sha = JSON.parse(readFileSync(join(repo, MODEL, '2', 'preprocess.json'), 'utf8')).model
      .sha256 as string;
    appendFileSync(
      join(repo, MODEL, 'config.pbtxt'),
      `parameters {\n  key: "model_sha256_v2"\n  value: { string_value: "${sha}" }\n}\n`,
    );
    expect((await hostLoad()).status).toBe(200);
    const live = await bothHeartbeats('both routers routing v2', (hb) => routableOn(hb, 2));
    const epoch = Math.max(...live.map((hb) => hb.epoch));
    expect(await heartbeats.canAllRoute(MODEL, 2, epoch)).toEqual({
      ok: true,
      routers: 2,
      blocking: [],
    });

    // No force needed any more; the answer lists nothing unroutable.
    const r = await putRoute(route('sentiment-live', [{ version: 2, weight: 1 }]));
    expect(r.status).toBe(200);
    expect(r.body.unroutable).toEqual({});
    for (const i of [0, 1]) {
      expect((await predict(i, 'sentiment-live', 'good')).body).toMatchObject({ version: 2 });
    }
  });

  it('reports the exact request counts per version across both routers; refusals before a version is chosen count against none', async () => {
    const fromMs = Date.now();
    const tooLong = 'x'.repeat(20_001);
    // [router, ok answers, TEXT_TOO_LONG refusals] per phase.
    const plan = {
      1: [
        [0, 7, 2],
        [1, 5, 1],
      ],
      2: [
        [0, 4, 1],
        [1, 6, 3],
      ],
    } as const;
    for (const version of [1, 2] as const) {
      expect((await putRoute(route('signals', [{ version, weight: 1 }]))).status).toBe(200);
      for (const [router, ok, bad] of plan[version]) {
        for (let i = 0; i < ok; i++) {
          const res = await predict(router, 'signals', `good ${i}`);
          expect([res.status, res.body.version]).toEqual([200, version]);
        }
        for (let i = 0; i < bad; i++) {
          expect((await predict(router, 'signals', tooLong)).status).toBe(413);
        }
      }
    }
    const read = (version: number) =>
      signals.read({ task: 'signals', model: MODEL, version, fromMs, toMs: Date.now() + 1 });
    // A text over hardMaxChars is refused before any version is chosen (no version can serve
    // it), so those refusals count against no version: only the answered requests do.
    const v1 = await pollUntil(async () => ((await read(1)).requests >= 12 ? read(1) : undefined), {
      timeoutMs: 20_000,
      what: 'v1 signals flushed',
    });
    const v2 = await pollUntil(async () => ((await read(2)).requests >= 10 ? read(2) : undefined), {
      timeoutMs: 20_000,
      what: 'v2 signals flushed',
    });
    expect([v1.requests, v1.errorsByClass, v1.errors]).toEqual([12, {}, 0]);
    expect([v2.requests, v2.errorsByClass, v2.errors]).toEqual([10, {}, 0]);
    expect(v1.p50Ms).not.toBeNull();
    const task = await signals.read({ task: 'signals', fromMs, toMs: Date.now() + 1 });
    expect(task.requests).toBe(22);
  });

  it('a version removed and unloaded on the host stops being chosen by both routers', async () => {
    expect(
      (
        await putRoute(
          route('sentiment-live', [
            { version: 1, weight: 1 },
            { version: 2, weight: 1 },
          ]),
        )
      ).status,
    ).toBe(200);
    rmSync(join(repo, MODEL, '2'), { recursive: true, force: true });
    expect((await hostLoad()).status).toBe(200);
    await bothHeartbeats(
      'both routers dropping v2',
      (hb) => !routableOn(hb, 2) && routableOn(hb, 1),
    );
    for (let i = 0; i < 20; i++) {
      const res = await predict(i % 2, 'sentiment-live', `text ${i}`);
      expect([res.status, res.body.version]).toEqual([200, 1]);
    }
    const admin2 = await call(urlOf(1), 'GET', '/v1/admin/routes', { key: ADMIN_KEY });
    const live = admin2.body.routes.find((r: { task: string }) => r.task === 'sentiment-live');
    expect(live.unroutable['2']).toContain('no version 2');
  });

  it('a stopped router removes its heartbeat', async () => {
    await routers[1]!.stop('SIGTERM');
    const live = await pollUntil(
      async () => {
        const hbs = await heartbeats.readLive();
        return hbs.length === 1 ? hbs : undefined;
      },
      { timeoutMs: 20_000, what: 'one heartbeat left' },
    );
    expect(live[0]!.routerId).toBe('router-a');
  });
});
