/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON and grpc-js dynamic clients are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { RoutingTableRepository } from '@mesh/routing';
import { uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ACME_KEY,
  ADMIN_KEY,
  DEMO_VERSIONS,
  GLOBEX_KEY,
  call,
  grpcCall,
  metricSum,
  postExpectContinue,
  predictorClient,
  predictorService,
  startMesh,
  type Mesh,
} from './support/router-mesh';

jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);
const ALL_KEY = 'e2e-all-tasks-key';

let mesh: Mesh;
let redis: RedisClient;
let repo: RoutingTableRepository;

const admin = (method: string, path: string, body?: unknown) =>
  call(mesh.http, method, `/v1/admin${path}`, { key: ADMIN_KEY, body });

beforeAll(async () => {
  // The timer refresh is pushed far out so route changes can only arrive through pub/sub.
  mesh = await startMesh(prefix, { routerEnv: { ROUTER_ROUTES_REFRESH_MS: '3600000' } });
  redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'router-e2e' });
  repo = new RoutingTableRepository(redis, { keyPrefix: prefix });
  const { createHash } = await import('node:crypto');
  const sha = createHash('sha256').update(ALL_KEY).digest('hex');
  const res = await admin('PUT', '/tenants', {
    name: 'e2e-all',
    keySha256: [sha],
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 100000, burst: 100000 },
    maxInFlight: 512,
  });
  expect(res.status).toBe(200);
  for (const v of DEMO_VERSIONS) {
    const r = await admin('PUT', '/routes', {
      tenant: 'e2e-all',
      task: `pin-${v.model}-v${v.version}`,
      model: v.model,
      versions: [{ version: v.version, weight: 1 }],
    });
    expect(r.status).toBe(200);
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

const TEXTS = [
  '今天天气怎么样',
  '帮我订一张去上海的火车票',
  'I love this phone, great battery!',
  '为什么天空是蓝色的？',
];

describe('predict on every demo model version', () => {
  it.each(DEMO_VERSIONS)('$model v$version: single and batch agree, in order', async (v) => {
    const task = `pin-${v.model}-v${v.version}`;
    const singles: any[] = [];
    for (const text of TEXTS) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: ALL_KEY,
        body: { task, text },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ model: v.model, version: v.version });
      expect(typeof r.body.latencyMs).toBe('number');
      singles.push(r.body);
    }
    const batch = await call(mesh.http, 'POST', '/v1/predict:batch', {
      key: ALL_KEY,
      body: { task, texts: TEXTS },
    });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({ model: v.model, version: v.version });
    expect(batch.body.results).toHaveLength(TEXTS.length);
    batch.body.results.forEach((item: any, i: number) => {
      const single = singles[i];
      if (v.kind === 'classification') {
        expect(typeof item.label).toBe('string');
        expect(item.score).toBeGreaterThan(0);
        expect(item.score).toBeLessThanOrEqual(1);
        expect(item.label).toBe(single.label);
        expect(item.score).toBeCloseTo(single.score, 4);
        expect(item.scores[0]).toEqual({ label: item.label, score: item.score });
      } else {
        const norm = Math.hypot(...(item.embedding as number[]));
        expect(norm).toBeCloseTo(1, 3);
        (item.embedding as number[]).forEach((x, j) =>
          expect(x).toBeCloseTo(single.embedding[j], 4),
        );
      }
    });
  });
});

describe('batch bound', () => {
  it('answers a full 256-text batch in order (split at the model max_batch_size of 64)', async () => {
    const texts = Array.from({ length: 256 }, (_, i) => (i % 2 === 0 ? `好${i}` : `great ${i}`));
    const r = await call(mesh.http, 'POST', '/v1/predict:batch', {
      key: ALL_KEY,
      body: { task: 'pin-sentiment-en-v1', texts },
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(256);
    for (const i of [0, 63, 64, 200, 255]) {
      const single = await call(mesh.http, 'POST', '/v1/predict', {
        key: ALL_KEY,
        body: { task: 'pin-sentiment-en-v1', text: texts[i] },
      });
      expect(r.body.results[i].label).toBe(single.body.label);
      expect(r.body.results[i].score).toBeCloseTo(single.body.score, 4);
    }
  });
});

describe('routing', () => {
  it('splits traffic by weight within ±5 percentage points over 2,000 requests', async () => {
    const set = await admin('PUT', '/routes', {
      tenant: 'e2e-all',
      task: 'weighted',
      model: 'intent-zh',
      versions: [
        { version: 1, weight: 70 },
        { version: 3, weight: 30 },
      ],
    });
    expect(set.status).toBe(200);
    const counts: Record<number, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < 2000) {
        next++;
        const r = await call(mesh.http, 'POST', '/v1/predict', {
          key: ALL_KEY,
          body: { task: 'weighted', text: '放一首歌' },
        });
        expect(r.status).toBe(200);
        counts[r.body.version] = (counts[r.body.version] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const total = (counts[1] ?? 0) + (counts[3] ?? 0);
    expect(total).toBe(2000);
    expect(Math.abs((counts[1] ?? 0) / total - 0.7)).toBeLessThanOrEqual(0.05);
    // A budget for a busy machine, not a speed claim: 2,000 real inferences.
  }, 240_000);

  it('keeps a sticky key on one version', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: ALL_KEY,
        body: { task: 'weighted', text: '闹钟' },
        headers: { 'x-mesh-sticky-key': 'user-42' },
      });
      seen.add(r.body.version);
    }
    expect(seen.size).toBe(1);
  });

  it('sees a route change made elsewhere through pub/sub, without waiting for the refresh timer', async () => {
    await repo.upsertRoute(
      {
        tenant: 'e2e-all',
        task: 'moving',
        model: 'intent-zh',
        versions: [{ version: 1, weight: 1 }],
      },
      { who: 'e2e' },
    );
    await pollUntil(
      async () => {
        const r = await call(mesh.http, 'POST', '/v1/predict', {
          key: ALL_KEY,
          body: { task: 'moving', text: 'x' },
        });
        return r.status === 200 && r.body.version === 1 ? true : undefined;
      },
      { timeoutMs: 3000, what: 'moving route' },
    );
    await repo.upsertRoute(
      {
        tenant: 'e2e-all',
        task: 'moving',
        model: 'intent-zh',
        versions: [{ version: 2, weight: 1 }],
      },
      { who: 'e2e' },
    );
    await pollUntil(
      async () => {
        const r = await call(mesh.http, 'POST', '/v1/predict', {
          key: ALL_KEY,
          body: { task: 'moving', text: 'x' },
        });
        return r.body.version === 2 ? true : undefined;
      },
      // Generous, yet far below the hour-long refresh timer: only pub/sub can deliver in time.
      { timeoutMs: 20_000, intervalMs: 20, what: 'the new version' },
    );
  });
});

describe('tenant isolation', () => {
  it("never shows or serves another tenant's routes", async () => {
    await admin('PUT', '/routes', {
      tenant: 'e2e-all',
      task: 'private-task',
      model: 'sentiment-en',
      versions: [{ version: 1, weight: 1 }],
    });
    const acmeTasks = await call(mesh.http, 'GET', '/v1/tasks', { key: ACME_KEY });
    expect(acmeTasks.status).toBe(200);
    const names = (acmeTasks.body.tasks as { task: string }[]).map((t) => t.task);
    expect(names).toEqual(['embed', 'intent', 'question-type', 'sentiment']);
    expect(names).not.toContain('private-task');
    // acme has its own intent route (v2); globex may not call intent at all.
    const acmeIntent = (acmeTasks.body.tasks as any[]).find((t) => t.task === 'intent');
    expect(acmeIntent).toMatchObject({ model: 'intent-zh', versions: [2] });
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'private-task', text: 'hi' },
    });
    expect(r.status).toBe(404);
    const g = await call(mesh.http, 'POST', '/v1/predict', {
      key: GLOBEX_KEY,
      body: { task: 'intent', text: 'hi' },
    });
    expect(g.status).toBe(404);
    expect(g.body.error.code).toBe('TASK_NOT_FOUND');
    const own = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'private-task', text: 'hi' },
    });
    expect(own.status).toBe(200);
  });

  it('routes acme to its own intent version and others to the default', async () => {
    const acme = await call(mesh.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'intent', text: '你好' },
    });
    expect(acme.body).toMatchObject({ model: 'intent-zh', version: 2 });
    const other = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'intent', text: '你好' },
    });
    expect(other.body).toMatchObject({ model: 'intent-zh', version: 3 });
  });
});

describe('errors', () => {
  const predict = (body: unknown, key: string | null = ALL_KEY) =>
    call(mesh.http, 'POST', '/v1/predict', { ...(key !== null ? { key } : {}), body });

  it('400 for a body that does not match the schema, naming the field', async () => {
    const r = await predict({ task: 'intent' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { issues: [{ path: 'text' }] },
    });
  });

  it('400 for malformed JSON, in the same error shape', async () => {
    const r = await call(mesh.http, 'POST', '/v1/predict', { key: ALL_KEY, raw: '{"task": ' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_JSON');
  });

  it('400 for an empty or whitespace-only text on every entry point, naming the field', async () => {
    const task = 'pin-intent-zh-v2';
    const issue = (path: string) => ({
      code: 'INVALID_ARGUMENT',
      message: `invalid request: ${path}: must not be empty`,
      details: { issues: [{ path, message: 'must not be empty' }] },
    });
    const http = [
      ['/v1/predict', { task, text: '' }, 'text'],
      ['/v1/predict', { task, text: ' \u3000\n' }, 'text'],
      [
        '/v1/predict',
        { task: 'pin-question-type-zh-v2', text: '为什么', textPair: ' ' },
        'textPair',
      ],
      ['/v1/predict:batch', { task, texts: ['好', '好', '好', '\t'] }, 'texts[3]'],
      ['/v1/tokenize', { task, text: '  ' }, 'text'],
    ] as const;
    for (const [path, body, field] of http) {
      const r = await call(mesh.http, 'POST', path, { key: ALL_KEY, body });
      expect([path, r.status, r.body.error]).toEqual([path, 400, issue(field)]);
    }
    const client = predictorClient(mesh.grpcAddress);
    try {
      const auth = { authorization: `Bearer ${ALL_KEY}` };
      const grpcCases = [
        ['Predict', { task, text: '' }, 'text'],
        ['Predict', { task, text: '   ' }, 'text'],
        ['PredictBatch', { task, texts: ['好', ''] }, 'texts[1]'],
        ['Tokenize', { task, text: '\n' }, 'text'],
      ] as const;
      for (const [method, request, field] of grpcCases) {
        const g = await grpcCall(client, method, request, auth);
        expect([method, g.error?.code, g.error?.details]).toEqual([
          method,
          3,
          issue(field).message,
        ]);
        expect(g.error?.metadata.get('x-mesh-error-code')).toEqual(['INVALID_ARGUMENT']);
      }
    } finally {
      client.close();
    }
  });

  it('401 for a missing or unknown key', async () => {
    expect((await predict({ task: 'intent', text: 'x' }, null)).status).toBe(401);
    const r = await predict({ task: 'intent', text: 'x' }, 'not-a-key');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('UNAUTHENTICATED');
  });

  it('403 for a tenant key on the admin API; 401 without a key', async () => {
    expect((await call(mesh.http, 'GET', '/v1/admin/routes', { key: ACME_KEY })).status).toBe(403);
    expect((await call(mesh.http, 'GET', '/v1/admin/routes')).status).toBe(401);
  });

  it('404 for an unknown task and for an unknown path', async () => {
    const r = await predict({ task: 'no-such-task', text: 'x' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('TASK_NOT_FOUND');
    const p = await call(mesh.http, 'GET', '/v1/nothing-here', { key: ALL_KEY });
    expect(p.status).toBe(404);
    expect(p.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('413 for text over hardMaxChars, a body over the limit, and a batch over its bound', async () => {
    const long = await predict({ task: 'pin-intent-zh-v2', text: '长'.repeat(20_001) });
    expect(long.status).toBe(413);
    expect(long.body.error).toMatchObject({ code: 'TEXT_TOO_LONG', details: { limit: 20000 } });
    const huge = await postExpectContinue(
      `${mesh.http}/v1/predict`,
      JSON.stringify({ task: 'pin-intent-zh-v2', text: 'a'.repeat(400 * 1024) }),
      { authorization: `Bearer ${ALL_KEY}` },
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: `request body exceeds the limit of ${256 * 1024} bytes`,
      details: { limitBytes: 256 * 1024 },
    });
    // Refused on its declared length: the client was never asked for the body.
    expect(huge.uploaded).toBe(false);
    // Under the limit, the same client gets the go-ahead, uploads and is answered.
    const fits = await postExpectContinue(
      `${mesh.http}/v1/predict`,
      JSON.stringify({ task: 'pin-intent-zh-v2', text: 'a'.repeat(1024) }),
      { authorization: `Bearer ${ALL_KEY}` },
    );
    expect({ status: fits.status, uploaded: fits.uploaded }).toEqual({
      status: 200,
      uploaded: true,
    });
    const batch = await call(mesh.http, 'POST', '/v1/predict:batch', {
      key: ALL_KEY,
      body: { task: 'pin-intent-zh-v2', texts: Array.from({ length: 257 }, () => 'x') },
    });
    expect(batch.status).toBe(413);
    expect(batch.body.error).toMatchObject({ code: 'BATCH_TOO_LARGE', details: { limit: 256 } });
  });

  it('429 with Retry-After when a tenant exceeds its rate', async () => {
    const { createHash } = await import('node:crypto');
    await admin('PUT', '/tenants', {
      name: 'slow',
      keySha256: [createHash('sha256').update('slow-key').digest('hex')],
      allowedTasks: ['*'],
      rateLimit: { requestsPerSecond: 1, burst: 2 },
      maxInFlight: 4,
    });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const r = await predict({ task: 'sentiment', text: 'ok' }, 'slow-key');
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get('retry-after');
        expect(r.body.error.code).toBe('RATE_LIMITED');
      }
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('503 naming the reason for a version no backend serves, and nothing is sent', async () => {
    // Pre-staged with force: the repository has no version 9 (without force: 422).
    await admin('PUT', '/routes?force=true', {
      tenant: 'e2e-all',
      task: 'ghost',
      model: 'intent-zh',
      versions: [{ version: 9, weight: 1 }],
    });
    const r = await predict({ task: 'ghost', text: 'x' });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('BACKEND_UNAVAILABLE');
    expect(r.body.error.message).toContain('v9');
    expect(r.body.error.details.reasons[0]).toMatchObject({ version: 9 });
  });

  it('gives gRPC the matching status codes', async () => {
    const client = predictorClient(mesh.grpcAddress);
    try {
      const auth = { authorization: `Bearer ${ALL_KEY}` };
      expect((await grpcCall(client, 'Predict', { task: 'intent', text: 'x' })).error?.code).toBe(
        16,
      );
      expect((await grpcCall(client, 'Predict', { task: '', text: 'x' }, auth)).error?.code).toBe(
        3,
      );
      expect(
        (await grpcCall(client, 'Predict', { task: 'no-such', text: 'x' }, auth)).error?.code,
      ).toBe(5);
      expect(
        (await grpcCall(client, 'Predict', { task: 'ghost', text: 'x' }, auth)).error?.code,
      ).toBe(14);
      const long = await grpcCall(
        client,
        'Predict',
        { task: 'pin-intent-zh-v2', text: 'x'.repeat(20_001) },
        auth,
      );
      expect(long.error?.code).toBe(3);
      expect(long.error?.metadata.get('x-mesh-error-code')).toEqual(['TEXT_TOO_LONG']);
      const forbidden = await grpcCall(
        client,
        'Predict',
        { task: 'intent', text: 'x' },
        { authorization: `Bearer ${GLOBEX_KEY}` },
      );
      expect(forbidden.error?.code).toBe(5);
    } finally {
      client.close();
    }
  });
});

describe('HTTP and gRPC', () => {
  it('give the same answers for predict, batch, tokenize and tasks', async () => {
    const client = predictorClient(mesh.grpcAddress);
    const md = { authorization: `Bearer ${ALL_KEY}`, 'x-request-id': 'grpc-req-1' };
    try {
      for (const v of DEMO_VERSIONS) {
        const task = `pin-${v.model}-v${v.version}`;
        const http = await call(mesh.http, 'POST', '/v1/predict', {
          key: ALL_KEY,
          body: { task, text: TEXTS[0] },
        });
        const g = await grpcCall(client, 'Predict', { task, text: TEXTS[0] }, md);
        expect(g.error).toBeUndefined();
        expect(g.response).toMatchObject({ model: http.body.model, version: http.body.version });
        if (v.kind === 'classification') {
          expect(g.response.prediction.label).toBe(http.body.label);
          expect(g.response.prediction.score).toBeCloseTo(http.body.score, 5);
          expect(g.response.prediction.scores.map((s: any) => s.label)).toEqual(
            http.body.scores.map((s: any) => s.label),
          );
        } else {
          expect(g.response.prediction.embedding).toHaveLength(http.body.embedding.length);
          g.response.prediction.embedding.forEach((x: number, i: number) =>
            expect(x).toBeCloseTo(http.body.embedding[i], 5),
          );
        }
      }
      expect(g0(await grpcCall(client, 'ListTasks', {}, md)).tasks).toEqual(
        (await call(mesh.http, 'GET', '/v1/tasks', { key: ALL_KEY })).body.tasks,
      );
      const batchHttp = await call(mesh.http, 'POST', '/v1/predict:batch', {
        key: ALL_KEY,
        body: { task: 'pin-sentiment-en-v1', texts: TEXTS },
      });
      const batchGrpc = g0(
        await grpcCall(client, 'PredictBatch', { task: 'pin-sentiment-en-v1', texts: TEXTS }, md),
      );
      expect(batchGrpc.results.map((r: any) => r.label)).toEqual(
        batchHttp.body.results.map((r: any) => r.label),
      );
      const tokHttp = await call(mesh.http, 'POST', '/v1/tokenize', {
        key: ALL_KEY,
        body: { task: 'pin-question-type-zh-v2', text: 'ＡＢＣ为什么' },
      });
      const tokGrpc = g0(
        await grpcCall(
          client,
          'Tokenize',
          { task: 'pin-question-type-zh-v2', text: 'ＡＢＣ为什么' },
          md,
        ),
      );
      expect(tokHttp.status).toBe(200);
      expect(tokGrpc.inputIds).toEqual(tokHttp.body.inputIds);
      expect(tokGrpc.tokens).toEqual(tokHttp.body.tokens);
      expect(tokHttp.body.pipeline).toBe('bert-wordpiece@2');
    } finally {
      client.close();
    }
  });

  it('echoes x-request-id on both transports and generates one when absent', async () => {
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'sentiment', text: 'fine' },
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    const gen = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'nope', text: 'x' },
    });
    expect(gen.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const client = predictorClient(mesh.grpcAddress);
    try {
      const g = await grpcCall(
        client,
        'Predict',
        { task: 'sentiment', text: 'fine' },
        {
          authorization: `Bearer ${ALL_KEY}`,
          'x-request-id': 'grpc-abc',
        },
      );
      expect(g.metadata?.get('x-request-id')).toEqual(['grpc-abc']);
      // Failed calls echo it too (it travels with the answer, whatever the answer is).
      const failed = await grpcCall(
        client,
        'Predict',
        { task: 'no-such-task', text: 'fine' },
        { authorization: `Bearer ${ALL_KEY}`, 'x-request-id': 'grpc-failed' },
      );
      expect(failed.error?.code).toBe(5); // NOT_FOUND
      expect(failed.metadata?.get('x-request-id')).toEqual(['grpc-failed']);
    } finally {
      client.close();
    }
  });
});

describe('PredictStream', () => {
  /** Sends every request on one stream, half-closes it, and collects the answers by id. */
  function streamAll(
    client: any,
    requests: { id: string; request: object }[],
    md: Record<string, string>,
  ): Promise<{ answers: Map<string, any>; code: number }> {
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(md)) metadata.set(k, v);
    const stream = client.PredictStream(metadata, { deadline: Date.now() + 30_000 });
    const answers = new Map<string, any>();
    stream.on('data', (m: any) => answers.set(m.id, m));
    stream.on('error', () => undefined);
    const done = new Promise<{ answers: Map<string, any>; code: number }>((resolve) =>
      stream.on('status', (s: grpc.StatusObject) => resolve({ answers, code: s.code })),
    );
    for (const r of requests) stream.write(r);
    stream.end();
    return done;
  }

  it('answers every request of a stream by id, as unary Predict does, errors included', async () => {
    const client = predictorClient(mesh.grpcAddress);
    const md = { authorization: `Bearer ${ALL_KEY}` };
    try {
      const good = DEMO_VERSIONS.map((v, i) => ({
        id: `v${i}`,
        request: { task: `pin-${v.model}-v${v.version}`, text: TEXTS[i % TEXTS.length] },
      }));
      const bad = [
        { id: 'no-task', request: { task: '', text: 'x' } },
        { id: 'unknown-task', request: { task: 'no-such-task', text: 'x' } },
        { id: 'too-long', request: { task: 'pin-intent-zh-v2', text: 'x'.repeat(200_000) } },
        { id: 'empty', request: { task: 'pin-intent-zh-v2', text: ' ' } },
      ];
      const { answers, code } = await streamAll(client, [...good, ...bad], md);
      expect(code).toBe(grpc.status.OK);
      expect([...answers.keys()].sort()).toEqual([...good, ...bad].map((r) => r.id).sort());
      for (const r of good) {
        const unary = g0(await grpcCall(client, 'Predict', r.request, md));
        const streamed = answers.get(r.id);
        expect(streamed.result).toBe('response');
        expect(streamed.response).toMatchObject({ model: unary.model, version: unary.version });
        expect(streamed.response.prediction.label).toBe(unary.prediction.label);
        expect(streamed.response.prediction.score).toBeCloseTo(unary.prediction.score, 5);
        expect(streamed.response.prediction.embedding.length).toBe(
          unary.prediction.embedding.length,
        );
      }
      for (const r of bad) {
        const unary = await grpcCall(client, 'Predict', r.request, md);
        const streamed = answers.get(r.id);
        expect(streamed.result).toBe('error');
        expect(streamed.error.code).toBe(unary.error?.code);
        expect(streamed.error.message).toBe(unary.error?.details);
        expect(streamed.error.meshCode).toBe(unary.error?.metadata.get('x-mesh-error-code')[0]);
      }
      expect(answers.get('no-task').error.message).toContain('task');
      expect(answers.get('too-long').error.meshCode).toBe('TEXT_TOO_LONG');
      expect(answers.get('empty').error).toMatchObject({
        meshCode: 'INVALID_ARGUMENT',
        message: 'invalid request: text: must not be empty',
      });
    } finally {
      client.close();
    }
  });

  it('answers bytes that are no PredictStreamRequest with INVALID_ARGUMENT and stays open', async () => {
    const method = predictorService().PredictStream!;
    // Requests go as raw bytes, so one can be junk; answers decode as usual.
    const Raw = grpc.makeGenericClientConstructor(
      { PredictStream: { ...method, requestSerialize: (b: Buffer) => b } },
      'Predictor',
    );
    const client = new Raw(mesh.grpcAddress, grpc.credentials.createInsecure()) as any;
    try {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${ALL_KEY}`);
      const stream = client.PredictStream(metadata, { deadline: Date.now() + 30_000 });
      const answers: any[] = [];
      stream.on('data', (m: any) => answers.push(m));
      stream.on('error', () => undefined);
      const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      // Field 2 (request), length-delimited, claiming more bytes than follow.
      stream.write(Buffer.from([0x12, 0x7f, 0x01]));
      stream.write(
        method.requestSerialize({ id: 'after', request: { task: 'sentiment', text: 'fine' } }),
      );
      stream.end();
      expect((await status).code).toBe(grpc.status.OK);
      expect(answers).toHaveLength(2);
      expect(answers.find((a) => a.id === '')).toMatchObject({
        result: 'error',
        error: { code: grpc.status.INVALID_ARGUMENT, meshCode: 'INVALID_ARGUMENT' },
      });
      expect(answers.find((a) => a.id === '').error.message).toContain('PredictStreamRequest');
      expect(answers.find((a) => a.id === 'after')?.result).toBe('response');
    } finally {
      client.close();
    }
  });

  it('refuses each request of a stream without a valid key on the stream, not the connection', async () => {
    const client = predictorClient(mesh.grpcAddress);
    try {
      const requests = [1, 2].map((i) => ({
        id: `r${i}`,
        request: { task: 'sentiment', text: 'fine' },
      }));
      const { answers, code } = await streamAll(client, requests, {
        authorization: 'Bearer wrong-key',
      });
      expect(code).toBe(grpc.status.OK);
      for (const id of ['r1', 'r2']) {
        expect(answers.get(id).error).toMatchObject({
          code: grpc.status.UNAUTHENTICATED,
          meshCode: 'UNAUTHENTICATED',
        });
      }
      // The same client still works with a good key.
      const ok = await streamAll(client, requests, { authorization: `Bearer ${ALL_KEY}` });
      expect(ok.answers.get('r1').result).toBe('response');
    } finally {
      client.close();
    }
  });
});

describe('operations', () => {
  it('exposes request counts by tenant/task/model/version/outcome and stage timings', async () => {
    const text = (await call(mesh.http, 'GET', '/metrics')).body as string;
    expect(
      metricSum(text, 'mesh_router_requests_total', {
        tenant: 'e2e-all',
        task: 'weighted',
        model: 'intent-zh',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(2000);
    expect(
      metricSum(text, 'mesh_router_requests_total', { outcome: 'RATE_LIMITED' }),
    ).toBeGreaterThanOrEqual(1);
    for (const stage of ['queue', 'tokenize', 'infer', 'postprocess']) {
      expect(
        metricSum(text, 'mesh_router_stage_duration_seconds_count', { stage }),
      ).toBeGreaterThan(0);
    }
  });

  it('serves OpenAPI at /docs', async () => {
    const doc = await call(mesh.http, 'GET', '/docs-json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/v1/predict', '/v1/predict:batch', '/v1/tasks', '/v1/tokenize']),
    );
    expect((await fetch(`${mesh.http}/docs`)).status).toBe(200);
  });

  it('caches responses per route when enabled, counting hits and misses', async () => {
    await admin('PUT', '/routes', {
      tenant: 'e2e-all',
      task: 'cached',
      model: 'sentiment-en',
      versions: [{ version: 1, weight: 1 }],
      cache: { enabled: true, maxEntries: 100 },
    });
    const a = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'cached', text: 'cache me' },
    });
    const b = await call(mesh.http, 'POST', '/v1/predict', {
      key: ALL_KEY,
      body: { task: 'cached', text: 'cache me' },
    });
    expect(b.body.label).toBe(a.body.label);
    const text = (await call(mesh.http, 'GET', '/metrics')).body as string;
    expect(
      metricSum(text, 'mesh_router_cache_requests_total', { model: 'sentiment-en', result: 'hit' }),
    ).toBe(1);
    expect(
      metricSum(text, 'mesh_router_cache_requests_total', {
        model: 'sentiment-en',
        result: 'miss',
      }),
    ).toBe(1);
  });

  it('mirrors sampled requests to the shadow version without changing the answer', async () => {
    await admin('PUT', '/routes', {
      tenant: 'e2e-all',
      task: 'shadowed',
      model: 'intent-zh',
      versions: [{ version: 2, weight: 1 }],
      shadow: { version: 3, percent: 100 },
    });
    for (let i = 0; i < 5; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: ALL_KEY,
        body: { task: 'shadowed', text: `影子${i}` },
      });
      expect(r.body).toMatchObject({ model: 'intent-zh', version: 2 });
    }
    await pollUntil(
      async () => {
        const text = (await call(mesh.http, 'GET', '/metrics')).body as string;
        const ok = metricSum(text, 'mesh_router_shadow_requests_total', {
          model: 'intent-zh',
          version: '3',
          outcome: 'ok',
        });
        const agreed = metricSum(text, 'mesh_router_shadow_agreement_total', { version: '3' });
        return ok >= 5 && agreed >= 5 ? true : undefined;
      },
      { timeoutMs: 5000, what: 'shadow copies' },
    );
  });

  it('audits admin changes with who, before and after', async () => {
    const r = await admin('GET', '/audit?limit=5');
    expect(r.status).toBe(200);
    expect(r.body.entries[0]).toMatchObject({
      who: 'admin',
      action: 'route.upsert',
      target: 'e2e-all/shadowed',
      before: null,
    });
    expect(r.body.entries[0].after.shadow).toEqual({ version: 3, percent: 100 });
    expect(typeof r.body.entries[0].when).toBe('string');
    expect(r.body.entries[0].epoch).toBeGreaterThan(r.body.entries[1].epoch);
  });
});

function g0(o: { response?: any; error?: unknown }): any {
  expect(o.error).toBeUndefined();
  return o.response;
}
