/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON is untyped by nature */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis } from '@mesh/config';
import {
  addArgs,
  runModelCli,
  stripDemoModel,
} from '../scripts/model-cli/testing/exported-model.fixture';
import { ROOT, uniquePrefix } from './support/app-process';
import { ADMIN_KEY, call, startMesh, type Mesh } from './support/router-mesh';

/**
 * Bring your own model, end to end: a generator-written model stripped to what a team exports
 * (model.onnx, tokenizer.json, labels.txt) goes through `mesh model add` as a new model and as
 * a new version of an existing one, then is served by the model host and the router with the
 * same predictions as the original.
 */

jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
const KEY = 'model-add-e2e-key';
const TEXTS = ['the staff were kind and quick', '今天天气怎么样？', 'terrible, never again', 'ok'];
let work: string;
let repo: string;
let mesh: Mesh;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'model-add-e2e-'));
  repo = join(work, 'repository');
  // The original: the demo sentiment model, served as it is.
  cpSync(join(ROOT, 'model_repository', 'sentiment-en'), join(repo, 'sentiment-en'), {
    recursive: true,
  });
  const exported = stripDemoModel(join(work, 'export'), 'sentiment-en', 1);
  const [asNew, asVersion] = await Promise.all([
    runModelCli(addArgs(repo, 'sentiment-byo', exported)),
    runModelCli(addArgs(repo, 'sentiment-en', exported)),
  ]);
  expect([asNew.code, asNew.stderr]).toEqual([0, '']);
  expect([asVersion.code, asVersion.stderr]).toEqual([0, '']);
  expect(asNew.stdout).toContain('added the new model sentiment-byo with version 1');
  expect(asVersion.stdout).toContain('added version 2 of the existing model sentiment-en');

  mesh = await startMesh(prefix, { repository: repo });
  const admin = (path: string, body: unknown) =>
    call(mesh.http, 'PUT', `/v1/admin${path}`, { key: ADMIN_KEY, body });
  const tenant = await admin('/tenants', {
    name: 'byo',
    keySha256: [createHash('sha256').update(KEY).digest('hex')],
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 1000, burst: 1000 },
    maxInFlight: 16,
  });
  expect(tenant.status).toBe(200);
  for (const [task, model, version] of [
    ['original', 'sentiment-en', 1],
    ['byo-new-model', 'sentiment-byo', 1],
    ['byo-new-version', 'sentiment-en', 2],
  ] as const) {
    const route = await admin('/routes', {
      tenant: 'byo',
      task,
      model,
      versions: [{ version, weight: 1 }],
    });
    expect(route.status).toBe(200);
  }
}, 300_000);

afterAll(async () => {
  await mesh?.stop();
  rmSync(work, { recursive: true, force: true });
  const redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'model-add-e2e' });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

async function predictions(task: string): Promise<any[]> {
  const out: any[] = [];
  for (const text of TEXTS) {
    const r = await call(mesh.http, 'POST', '/v1/predict', { key: KEY, body: { task, text } });
    expect([r.status, r.body.error]).toEqual([200, undefined]);
    out.push(r.body);
  }
  return out;
}

const comparable = (p: any) => ({
  label: p.label,
  scores: (p.scores as any[]).map((s) => ({ label: s.label, score: Number(s.score.toFixed(5)) })),
});

describe('a model published with mesh model add', () => {
  it('is ready on the model host as a new model and as a new version', async () => {
    for (const path of ['sentiment-byo/versions/1', 'sentiment-en/versions/2']) {
      const r = await fetch(`${mesh.host.urls.http}/v2/models/${path}/ready`);
      expect([path, r.status]).toEqual([path, 200]);
    }
    const config = await call(mesh.host.urls.http!, 'GET', '/v2/models/sentiment-byo/config');
    expect(config.status).toBe(200);
    expect(JSON.stringify(config.body)).toContain('model_sha256_v1');
  });

  it('answers through the router with the same predictions as the original', async () => {
    const original = await predictions('original');
    const asNewModel = await predictions('byo-new-model');
    const asNewVersion = await predictions('byo-new-version');
    expect(original.map((p) => [p.model, p.version])).toEqual(TEXTS.map(() => ['sentiment-en', 1]));
    expect(asNewModel.map((p) => [p.model, p.version])).toEqual(
      TEXTS.map(() => ['sentiment-byo', 1]),
    );
    expect(asNewVersion.map((p) => [p.model, p.version])).toEqual(
      TEXTS.map(() => ['sentiment-en', 2]),
    );
    expect(asNewModel.map(comparable)).toEqual(original.map(comparable));
    expect(asNewVersion.map(comparable)).toEqual(original.map(comparable));
    // The texts get different answers, so equality above is not a constant's.
    expect(new Set(original.map((p) => JSON.stringify(p.scores))).size).toBe(TEXTS.length);
  });
});
