/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is read untyped */
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { startApp, uniquePrefix, type StartedApp } from './support/app-process';

jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
let app: StartedApp;
let redis: RedisClient;

/** Every `$ref` of a document, wherever it sits. */
function refsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsOf);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsOf(value),
  );
}

beforeAll(async () => {
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'coordinator-urls-e2e',
  });
  app = await startApp('coordinator', {
    COORDINATOR_PORT: '0',
    REDIS_KEY_PREFIX: prefix,
    ADMIN_API_KEY: 'coordinator-urls-e2e-admin-key',
    KSERVE_ENDPOINTS: '127.0.0.1:1',
  });
});

afterAll(async () => {
  await app?.stop('SIGTERM');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('coordinator URLs people type (process)', () => {
  it('sends / and /ui/ to the dashboard at /ui, which serves the page', async () => {
    for (const path of ['/', '/ui/']) {
      const res = await fetch(`${app.urls.http}${path}`, { redirect: 'manual' });
      expect([path, res.status, res.headers.get('location')]).toEqual([path, 302, '/ui']);
    }
    const page = await fetch(`${app.urls.http}/`);
    expect(page.url).toBe(`${app.urls.http}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('still answers an unknown dashboard asset with the JSON error shape', async () => {
    const res = await fetch(`${app.urls.http}/ui/nope.js`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('coordinator OpenAPI at /docs (process)', () => {
  it('serves a valid OpenAPI 3 document naming the rollout and dashboard API', async () => {
    const res = await fetch(`${app.urls.http}/docs-json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info).toMatchObject({
      title: 'model mesh coordinator',
      version: expect.any(String),
    });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/rollouts',
        '/v1/rollouts/{id}',
        '/v1/rollouts/{id}/{command}',
        '/v1/dashboard/traffic',
      ]),
    );
    expect(Object.keys(doc.paths['/v1/rollouts']).sort()).toEqual(['get', 'post']);
    // Every operation answers something, and every reference points at a component.
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, o] of Object.entries<any>(item)) {
        expect([method, path, Object.keys(o.responses).length > 0]).toEqual([method, path, true]);
      }
    }
    const refs = [...new Set(refsOf(doc))];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
      expect([ref, name !== undefined && name in doc.components.schemas]).toEqual([ref, true]);
    }
    expect(doc.components.securitySchemes.adminKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(doc.paths['/v1/rollouts'].post.security).toEqual([{ adminKey: [] }]);
    expect(
      doc.paths['/v1/rollouts'].post.responses['401'].content['application/json'].schema,
    ).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect((await fetch(`${app.urls.http}/docs`)).status).toBe(200);
  });
});
