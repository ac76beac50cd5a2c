/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON and grpc-js dynamic clients are untyped by nature */
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { request } from 'node:http';
import { join } from 'node:path';
import { ROOT, uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ACME_KEY,
  ADMIN_KEY,
  GLOBEX_KEY,
  call,
  grpcCall,
  predictorClient,
  startMesh,
  type Mesh,
} from './support/router-mesh';

/**
 * The router's HTTP/gRPC edge as a client meets it: one error shape and the right status for
 * every transport-level mistake, the admin key guard on every admin endpoint, admin bodies
 * validated by the routing lib's schemas, and the audit actor taken from configuration.
 */
jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);
const ALL_KEY = 'edge-all-tasks-key';
let mesh: Mesh;
let redis: RedisClient;

beforeAll(async () => {
  mesh = await startMesh(prefix, { routerEnv: { ADMIN_ACTOR: 'ops-team' } });
  redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'router-edge-e2e' });
  const r = await call(mesh.http, 'PUT', '/v1/admin/routes', {
    key: ADMIN_KEY,
    body: {
      tenant: 'acme',
      task: 'acme-only',
      model: 'sentiment-en',
      versions: [{ version: 1, weight: 1 }],
    },
  });
  expect(r.status).toBe(200);
  const { createHash } = await import('node:crypto');
  const t = await call(mesh.http, 'PUT', '/v1/admin/tenants', {
    key: ADMIN_KEY,
    body: {
      name: 'edge-all',
      keySha256: [createHash('sha256').update(ALL_KEY).digest('hex')],
      allowedTasks: ['*'],
      rateLimit: { requestsPerSecond: 100000, burst: 100000 },
      maxInFlight: 512,
    },
  });
  expect(t.status).toBe(200);
  for (const version of [1, 2]) {
    const p = await call(mesh.http, 'PUT', '/v1/admin/routes', {
      key: ADMIN_KEY,
      body: {
        tenant: 'edge-all',
        task: `qt-v${version}`,
        model: 'question-type-zh',
        versions: [{ version, weight: 1 }],
      },
    });
    expect(p.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await closeRedis(redis);
  }
});

/** A raw HTTP/1.1 request (fetch always adds a content-type to a string body). */
function rawRequest(
  path: string,
  {
    method = 'POST',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${mesh.http}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('item 6: error shapes and statuses', () => {
  it('431 in the error shape for headers over the limit (not Fastify’s own shape)', async () => {
    const r = await rawRequest('/v1/tasks', {
      method: 'GET',
      headers: { authorization: `Bearer ${ACME_KEY}`, 'x-filler': 'a'.repeat(20_000) },
    });
    expect(r.status).toBe(431);
    expect(r.body).toEqual({
      error: { code: 'HEADERS_TOO_LARGE', message: 'request headers exceed the size limit' },
    });
  });

  it('answers a task the tenant may not call exactly like an unknown task, over HTTP and gRPC', async () => {
    const predict = (key: string, task: string) =>
      call(mesh.http, 'POST', '/v1/predict', { key, body: { task, text: 'x' } });
    // globex may not call intent; acme-only is another tenant's private route; no-such exists nowhere.
    const answers = [
      await predict(GLOBEX_KEY, 'intent'),
      await predict(GLOBEX_KEY, 'acme-only'),
      await predict(GLOBEX_KEY, 'no-such'),
    ];
    for (const [i, task] of ['intent', 'acme-only', 'no-such'].entries()) {
      expect(answers[i]!.status).toBe(404);
      expect(answers[i]!.body).toEqual({
        error: { code: 'TASK_NOT_FOUND', message: `unknown task '${task}'`, details: { task } },
      });
    }
    const client = predictorClient(mesh.grpcAddress);
    try {
      const md = { authorization: `Bearer ${GLOBEX_KEY}` };
      for (const task of ['intent', 'acme-only', 'no-such']) {
        const g = await grpcCall(client, 'Predict', { task, text: 'x' }, md);
        expect(g.error?.code).toBe(5);
        expect(g.error?.details).toBe(`unknown task '${task}'`);
        expect(g.error?.metadata.get('x-mesh-error-code')).toEqual(['TASK_NOT_FOUND']);
      }
    } finally {
      client.close();
    }
  });

  it('405 with Allow for a known path asked with the wrong method; 404 for an unknown path', async () => {
    const get = await call(mesh.http, 'GET', '/v1/predict', { key: ACME_KEY });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.body.error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      details: { allow: ['POST'] },
    });
    const batch = await call(mesh.http, 'GET', '/v1/predict:batch', { key: ACME_KEY });
    expect(batch.status).toBe(405);
    const del = await call(mesh.http, 'DELETE', '/v1/admin/routes/acme/x/y', { key: ADMIN_KEY });
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('415 for a JSON route sent without a content type or with a form content type', async () => {
    const body = JSON.stringify({ task: 'sentiment', text: 'fine' });
    const auth = { authorization: `Bearer ${ACME_KEY}` };
    const none = await rawRequest('/v1/predict', {
      headers: { ...auth, 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    expect(none.status).toBe(415);
    expect(none.body.error).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'content-type must be application/json (got none)',
    });
    const form = await rawRequest('/v1/predict', {
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(form.status).toBe(415);
    expect(form.body.error.message).toContain('application/x-www-form-urlencoded');
    const json = await rawRequest('/v1/predict', {
      headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
      body,
    });
    expect(json.status).toBe(200);
  });

  it('labels query and header errors by where they came from, not "(body)"', async () => {
    const q = await call(mesh.http, 'GET', '/v1/admin/audit?limit=abc', { key: ADMIN_KEY });
    expect(q.status).toBe(400);
    expect(q.body.error.details.issues[0].path).toBe('query.limit');
    expect(q.body.error.message).toBe('invalid request: query.limit: must be a number');
    const h = await call(mesh.http, 'DELETE', '/v1/admin/routes/acme/acme-only', {
      key: ADMIN_KEY,
      headers: { 'x-mesh-expected-epoch': 'soon' },
    });
    expect(h.status).toBe(400);
    expect(h.body.error.details.issues[0].path).toBe('header.x-mesh-expected-epoch');
  });

  it('names a __proto__ key as a reserved key (400 INVALID_ARGUMENT), not "not valid JSON"', async () => {
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      raw: '{"task":"sentiment","text":"x","__proto__":{"polluted":1}}',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'invalid request: __proto__: is a reserved key',
    });
    const bad = await call(mesh.http, 'POST', '/v1/predict', { key: ACME_KEY, raw: '{"task": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_JSON');
  });
});

describe('item 8: the admin guard and admin body validation', () => {
  const endpoints: [string, string][] = [
    ['GET', '/v1/admin/table'],
    ['GET', '/v1/admin/routes'],
    ['PUT', '/v1/admin/routes'],
    ['DELETE', '/v1/admin/routes/acme/acme-only'],
    ['GET', '/v1/admin/tenants'],
    ['PUT', '/v1/admin/tenants'],
    ['DELETE', '/v1/admin/tenants/acme'],
    ['GET', '/v1/admin/audit'],
    ['POST', '/v1/admin/reseed'],
    ['GET', '/v1/admin/jobs'],
    ['GET', '/v1/admin/jobs/j-1'],
    ['DELETE', '/v1/admin/jobs/j-1'],
  ];

  it.each(endpoints)('%s %s: 401 without a key, 403 with a tenant key', async (method, path) => {
    const body = method === 'PUT' ? {} : undefined;
    const none = await call(mesh.http, method, path, { body });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    const tenant = await call(mesh.http, method, path, { key: ACME_KEY, body });
    expect(tenant.status).toBe(403);
    expect(tenant.body.error.code).toBe('ADMIN_FORBIDDEN');
  });

  it('validates an admin body with the routing schema, naming the field', async () => {
    const r = await call(mesh.http, 'PUT', '/v1/admin/routes', {
      key: ADMIN_KEY,
      body: {
        tenant: 'acme',
        task: 't',
        model: 'sentiment-en',
        versions: [{ version: 1, weight: 'x' }],
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ROUTING_CONFIG');
    expect(r.body.error.details.issues).toEqual([
      { path: 'versions[0].weight', message: 'must be a number' },
    ]);
    const notObject = await call(mesh.http, 'PUT', '/v1/admin/tenants', {
      key: ADMIN_KEY,
      body: [1],
    });
    expect(notObject.status).toBe(400);
    expect(notObject.body.error.code).toBe('INVALID_ROUTING_CONFIG');
  });
});

describe('item 8: OpenAPI generated from the zod schemas', () => {
  it('serves one document with the admin API, its error responses and opaque bearer keys', async () => {
    const doc = await call(mesh.http, 'GET', '/docs-json');
    expect(doc.status).toBe(200);
    expect(
      doc.body.paths['/v1/admin/routes'].put.requestBody.content['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/Route' });
    expect(Object.keys(doc.body.paths['/v1/predict'].post.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '415', '429', '503']),
    );
    expect(doc.body.components.securitySchemes.adminKey.bearerFormat).toBe('opaque API key');
    expect((await fetch(`${mesh.http}/docs`)).status).toBe(200);
  });
});

describe('item 10: admin edits are audited under the configured actor and logged', () => {
  it('records ADMIN_ACTOR as who, and logs one admin-edit line per edit', async () => {
    const audit = await call(mesh.http, 'GET', '/v1/admin/audit?limit=50', { key: ADMIN_KEY });
    const edit = (audit.body.entries as any[]).find((e) => e.target === 'acme/acme-only');
    expect(edit).toMatchObject({ who: 'ops-team', action: 'route.upsert' });
    const lines = mesh.router.logs
      .filter((l) => l.includes('"admin-edit"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'admin-edit',
        actor: 'ops-team',
        action: 'route.upsert',
        target: 'acme/acme-only',
        epoch: edit.epoch,
      }),
    );
  });
});

describe('item 4: a canary does not change which inputs are accepted', () => {
  const pair = { task: 'question-type', text: '你好', textPair: '再见' };

  it('routes a pair only to the versions that take pairs (the 90/10 demo canary), HTTP and gRPC', async () => {
    for (let i = 0; i < 30; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', { key: ACME_KEY, body: pair });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ model: 'question-type-zh', version: 2 });
    }
    const client = predictorClient(mesh.grpcAddress);
    try {
      for (let i = 0; i < 10; i++) {
        const g = await grpcCall(client, 'Predict', pair, { authorization: `Bearer ${ACME_KEY}` });
        expect(g.error).toBeUndefined();
        expect(g.response.version).toBe(2);
      }
    } finally {
      client.close();
    }
    // Single texts still follow the 90/10 split: version 1 keeps answering them.
    const singles = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: ACME_KEY,
        body: { task: 'question-type', text: `你好${i}` },
      });
      singles.add(r.body.version);
    }
    expect(singles.has(1)).toBe(true);
  });

  it('answers 400 naming the reason only when no version of the route can serve the pair', async () => {
    const body = { ...pair, task: 'qt-v1' };
    const r = await call(mesh.http, 'POST', '/v1/predict', { key: ALL_KEY, body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_INPUT');
    expect(r.body.error.message).toContain('takes single texts only');
    const client = predictorClient(mesh.grpcAddress);
    try {
      const g = await grpcCall(client, 'Predict', body, { authorization: `Bearer ${ALL_KEY}` });
      expect(g.error?.code).toBe(3);
      expect(g.error?.metadata.get('x-mesh-error-code')).toEqual(['INVALID_INPUT']);
    } finally {
      client.close();
    }
  });
});

describe('item 5: textPair "" means the same over HTTP and gRPC', () => {
  it('is refused as empty on both (proto3 optional keeps its presence), unlike an absent textPair', async () => {
    const body = { task: 'qt-v2', text: '为什么', textPair: '' };
    const http = await call(mesh.http, 'POST', '/v1/tokenize', { key: ALL_KEY, body });
    const single = await call(mesh.http, 'POST', '/v1/tokenize', {
      key: ALL_KEY,
      body: { task: 'qt-v2', text: '为什么' },
    });
    expect(http.status).toBe(400);
    expect(http.body.error).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'invalid request: textPair: must not be empty',
      details: { issues: [{ path: 'textPair', message: 'must not be empty' }] },
    });
    expect(single.status).toBe(200);
    expect(single.body.tokens.filter((t: string) => t === '[SEP]')).toHaveLength(1);
    const client = predictorClient(mesh.grpcAddress);
    try {
      const md = { authorization: `Bearer ${ALL_KEY}` };
      const g = await grpcCall(client, 'Tokenize', body, md);
      expect(g.error?.code).toBe(3);
      expect(g.error?.details).toBe(http.body.error.message);
      const absent = await grpcCall(client, 'Tokenize', { task: 'qt-v2', text: '为什么' }, md);
      expect(absent.response.tokens).toEqual(single.body.tokens);
      // On a single-text version too, "" is refused the same way on both.
      const v1 = { task: 'qt-v1', text: 'a', textPair: '' };
      const hv1 = await call(mesh.http, 'POST', '/v1/predict', { key: ALL_KEY, body: v1 });
      const gv1 = await grpcCall(client, 'Predict', v1, md);
      expect(hv1.status).toBe(400);
      expect(gv1.error?.code).toBe(3);
    } finally {
      client.close();
    }
  });
});

describe('item 7: lengths count characters (code points), not UTF-16 units', () => {
  it('accepts 15,000 emoji under a 20,000-character limit and counts 20,001 as 20,001', async () => {
    const ok = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'qt-v2', text: '😀'.repeat(15_000) },
    });
    expect(ok.status).toBe(200);
    const long = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'qt-v2', text: '😀'.repeat(20_001) },
    });
    expect(long.status).toBe(413);
    // One text is named by its field, with no index; a batch's by its position.
    expect(long.body.error).toEqual({
      code: 'TEXT_TOO_LONG',
      message: 'text has 20001 characters; the limit is 20000',
      details: { field: 'text', length: 20001, limit: 20000 },
    });
    const batch = await call(mesh.http, 'POST', '/v1/predict:batch', {
      key: ALL_KEY,
      body: { task: 'qt-v2', texts: ['短', '😀'.repeat(20_001)] },
    });
    expect(batch.status).toBe(413);
    expect(batch.body.error).toMatchObject({
      message: 'texts[1] has 20001 characters; the limit is 20000',
      details: { index: 1, length: 20001, limit: 20000 },
    });
    const client = predictorClient(mesh.grpcAddress);
    try {
      const md = { authorization: `Bearer ${ALL_KEY}` };
      const g = await grpcCall(client, 'Predict', { task: 'qt-v2', text: '😀'.repeat(15_000) }, md);
      expect(g.error).toBeUndefined();
      const gl = await grpcCall(
        client,
        'Predict',
        { task: 'qt-v2', text: '😀'.repeat(20_001) },
        md,
      );
      expect(gl.error?.code).toBe(3);
      expect(gl.error?.details).toBe('text has 20001 characters; the limit is 20000');
    } finally {
      client.close();
    }
  });
});

describe('item 8: /v1/tasks tells a client what it needs', () => {
  it('lists weighted versions with weight, maxLength, hardMaxChars, pairs and labels, same on gRPC', async () => {
    const r = await call(mesh.http, 'GET', '/v1/tasks', { key: ACME_KEY });
    const qt = (r.body.tasks as any[]).find((t) => t.task === 'question-type');
    expect(qt).toMatchObject({ model: 'question-type-zh', versions: [1, 2], pairs: true });
    expect(qt.weightedVersions).toEqual([
      expect.objectContaining({ version: 1, weight: 90, pairs: false, hardMaxChars: 20000 }),
      expect.objectContaining({ version: 2, weight: 10, pairs: true, hardMaxChars: 20000 }),
    ]);
    expect(qt.weightedVersions[0].maxLength).toBeGreaterThan(0);
    expect(qt.weightedVersions[0].labels.length).toBeGreaterThan(1);
    const embed = (r.body.tasks as any[]).find((t) => t.task === 'embed');
    expect(embed.weightedVersions[0]).toMatchObject({ pairs: false, labels: [] });
    const client = predictorClient(mesh.grpcAddress);
    try {
      const g = await grpcCall(client, 'ListTasks', {}, { authorization: `Bearer ${ACME_KEY}` });
      expect(g.response.tasks).toEqual(r.body.tasks);
    } finally {
      client.close();
    }
  });
});

describe('item 9: gRPC health and server reflection on the router port', () => {
  const load = (file: string) =>
    grpc.loadPackageDefinition(
      protoLoader.loadSync(join(ROOT, 'node_modules', file), { enums: String }),
    ) as any;

  it('answers grpc.health.v1.Health/Check SERVING for the server and mesh.v1.Predictor', async () => {
    const { grpc: g } = load('grpc-health-check/proto/health/v1/health.proto');
    const client = new g.health.v1.Health(mesh.grpcAddress, grpc.credentials.createInsecure());
    try {
      for (const service of ['', 'mesh.v1.Predictor']) {
        const r = await grpcCall(client, 'Check', { service });
        expect(r.error).toBeUndefined();
        expect(r.response.status).toBe('SERVING');
      }
      const unknown = await grpcCall(client, 'Check', { service: 'nope.Service' });
      expect(unknown.error?.code).toBe(5);
    } finally {
      client.close();
    }
  });

  it('lists and describes the services through grpc.reflection.v1', async () => {
    const { grpc: g } = load('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const client = new g.reflection.v1.ServerReflection(
      mesh.grpcAddress,
      grpc.credentials.createInsecure(),
    );
    try {
      const ask = (req: object) =>
        new Promise<any>((resolve, reject) => {
          const stream = client.ServerReflectionInfo();
          stream.on('data', (d: any) => {
            resolve(d);
            stream.end();
          });
          stream.on('error', reject);
          stream.write(req);
        });
      const list = await ask({ listServices: '' });
      const names = (list.listServicesResponse.service as { name: string }[]).map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['mesh.v1.Predictor', 'grpc.health.v1.Health']));
      const file = await ask({ fileContainingSymbol: 'mesh.v1.Predictor' });
      expect(file.fileDescriptorResponse.fileDescriptorProto.length).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });
});

describe('item 10: one access-log line per request', () => {
  const accessLine = (id: string) =>
    pollUntil(
      () =>
        mesh.router.logs
          .filter((l) => l.includes('"access"') && l.includes(id))
          .map((l) => JSON.parse(l) as Record<string, unknown>)[0],
      { timeoutMs: 10_000, what: `access line of ${id}` },
    );

  it('logs request id, tenant, task, model, version, status and latency over HTTP and gRPC', async () => {
    const ok = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'qt-v2', text: '为什么' },
      headers: { 'x-request-id': 'edge-access-http' },
    });
    expect(ok.status).toBe(200);
    expect(await accessLine('edge-access-http')).toMatchObject({
      event: 'access',
      requestId: 'edge-access-http',
      transport: 'http',
      method: 'POST',
      route: '/v1/predict',
      tenant: 'edge-all',
      task: 'qt-v2',
      model: 'question-type-zh',
      version: 2,
      status: 200,
      latencyMs: expect.any(Number),
    });
    await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'no-such', text: 'x' },
      headers: { 'x-request-id': 'edge-access-404' },
    });
    expect(await accessLine('edge-access-404')).toMatchObject({
      status: 404,
      code: 'TASK_NOT_FOUND',
      task: 'no-such',
    });
    const client = predictorClient(mesh.grpcAddress);
    try {
      const g = await grpcCall(
        client,
        'Predict',
        { task: 'qt-v2', text: '为什么' },
        { authorization: `Bearer ${ALL_KEY}`, 'x-request-id': 'edge-access-grpc' },
      );
      expect(g.error).toBeUndefined();
    } finally {
      client.close();
    }
    expect(await accessLine('edge-access-grpc')).toMatchObject({
      transport: 'grpc',
      method: 'Predict',
      tenant: 'edge-all',
      model: 'question-type-zh',
      version: 2,
      status: 0,
    });
    const lines = mesh.router.logs.filter((l) => l.includes('edge-access-http'));
    expect(lines.filter((l) => l.includes('"access"'))).toHaveLength(1);
  });

  it('logs each request of a PredictStream under its own id, failures with their status', async () => {
    const client = predictorClient(mesh.grpcAddress);
    try {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${ALL_KEY}`);
      const stream = client.PredictStream(metadata);
      stream.on('data', () => undefined);
      stream.on('error', () => undefined);
      const ended = new Promise((resolve) => stream.on('status', resolve));
      stream.write({ id: 'edge-stream-ok', request: { task: 'qt-v2', text: '为什么' } });
      stream.write({ id: 'edge-stream-404', request: { task: 'no-such', text: 'x' } });
      stream.end();
      await ended;
    } finally {
      client.close();
    }
    expect(await accessLine('edge-stream-ok')).toMatchObject({
      requestId: 'edge-stream-ok',
      transport: 'grpc',
      method: 'PredictStream',
      tenant: 'edge-all',
      model: 'question-type-zh',
      version: 2,
      status: 0,
      failed: false,
    });
    expect(await accessLine('edge-stream-404')).toMatchObject({
      method: 'PredictStream',
      task: 'no-such',
      status: grpc.status.NOT_FOUND,
      failed: true,
    });
  });
});
