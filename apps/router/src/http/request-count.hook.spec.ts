import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AccessLog } from '../access-log';
import type { CallContext } from '../predict/predict-commands';
import { RouterMetrics } from '../router.metrics';
import { UnauthenticatedError } from '@mesh/routing';
import { RequestValidationError } from '../errors/router.errors';
import { HttpErrorFilter } from './http-error.hook';
import { installJsonBodyParser } from './json-body.parser';
import { countClientErrors, countedMethodOf, installRequestCountHook } from './request-count.hook';
import { installAccessLogHook, installRequestIdHook } from './request-id.hook';
import { RouteMethodIndex } from './route-methods-index';

/** The router's HTTP edge as main.ts assembles it, with a predict route that checks a key. */
async function edge(): Promise<{ app: FastifyInstance; registry: Registry }> {
  const registry = new Registry();
  const silent = pino({ level: 'silent' });
  const app = Fastify({ bodyLimit: 64 });
  const routes = new RouteMethodIndex();
  routes.install(app);
  const filter = new HttpErrorFilter(silent, routes);
  app.setErrorHandler((err, request, reply) => filter.reply(err, request, reply));
  app.setNotFoundHandler((request, reply) =>
    filter.reply(Object.assign(new Error('no route'), { statusCode: 404 }), request, reply),
  );
  installRequestIdHook(app);
  installAccessLogHook(app, new AccessLog(silent, 0, () => 1, silent));
  installRequestCountHook(app, new RouterMetrics(registry));
  installJsonBodyParser(app);
  app.post('/v1/predict', (request) => {
    const ctx = { served: undefined } as CallContext;
    request.meshCall = ctx;
    if (request.headers.authorization !== 'Bearer good') throw new UnauthenticatedError();
    ctx.served = { tenant: 'acme' };
    const body = request.body as { task?: string; text?: string };
    if (!body.text) throw new RequestValidationError([{ path: 'text', message: 'is required' }]);
    ctx.served = { tenant: 'acme', task: body.task!, model: 'intent-zh', version: 2 };
    return { label: 'greeting' };
  });
  app.get('/v1/tasks', () => ({ tasks: [] }));
  await app.ready();
  return { app, registry };
}

/** `outcome` → count of `mesh_router_requests_total`, and the full label sets seen. */
async function counted(registry: Registry) {
  const metric = await registry.getSingleMetric('mesh_router_requests_total')!.get();
  const byOutcome: Record<string, number> = {};
  for (const v of metric.values) {
    const outcome = String(v.labels.outcome);
    byOutcome[outcome] = (byOutcome[outcome] ?? 0) + v.value;
  }
  return { byOutcome, labels: metric.values.map((v) => v.labels) };
}

describe('countedMethodOf', () => {
  it('names the predict API paths, query ignored, and nothing else', () => {
    expect(countedMethodOf('/v1/predict?x=1')).toBe('predict');
    expect(countedMethodOf('/v1/predict:batch')).toBe('predict_batch');
    expect(countedMethodOf('/v1/tokenize')).toBe('tokenize');
    expect(countedMethodOf('/v1/tasks')).toBeUndefined();
    expect(countedMethodOf('/v1/predict/../../etc/passwd')).toBeUndefined();
  });
});

describe('the request count hook', () => {
  let app: FastifyInstance;
  let registry: Registry;
  beforeEach(async () => ({ app, registry } = await edge()));
  afterEach(() => app.close());

  const json = { 'content-type': 'application/json' };
  const good = { ...json, authorization: 'Bearer good' };

  it.each([
    ['an answer', { method: 'POST', headers: good, payload: '{"task":"t","text":"hi"}' }, 'ok'],
    ['a bad key', { method: 'POST', headers: json, payload: '{"text":"hi"}' }, 'UNAUTHENTICATED'],
    ['bad JSON', { method: 'POST', headers: good, payload: '{"text":' }, 'INVALID_JSON'],
    ['a schema refusal', { method: 'POST', headers: good, payload: '{}' }, 'INVALID_ARGUMENT'],
    [
      'a body over the limit',
      { method: 'POST', headers: good, payload: JSON.stringify({ text: 'x'.repeat(100) }) },
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'another media type',
      { method: 'POST', headers: { 'content-type': 'application/xml' }, payload: '<a/>' },
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['the wrong method', { method: 'GET', headers: {}, payload: undefined }, 'METHOD_NOT_ALLOWED'],
  ] as const)('counts %s once, by the code of the answer', async (_what, req, outcome) => {
    const r = await app.inject({ url: '/v1/predict', ...req });
    if (outcome !== 'ok') expect(r.json()).toMatchObject({ error: { code: outcome } });
    const { byOutcome } = await counted(registry);
    expect(byOutcome).toEqual({ [outcome]: 1 });
  });

  it('labels what the request got to: nothing before the key, the tenant after it', async () => {
    await app.inject({ method: 'POST', url: '/v1/predict', headers: json, payload: '{}' });
    await app.inject({ method: 'POST', url: '/v1/predict', headers: good, payload: '{}' });
    const payload = '{"task":"intent","text":"hi"}';
    await app.inject({ method: 'POST', url: '/v1/predict', headers: good, payload });
    const { labels } = await counted(registry);
    const blank = { transport: 'http', method: 'predict', task: '', model: '', version: '' };
    expect(labels).toEqual(
      expect.arrayContaining([
        { ...blank, tenant: '', outcome: 'UNAUTHENTICATED' },
        { ...blank, tenant: 'acme', outcome: 'INVALID_ARGUMENT' },
        {
          ...blank,
          tenant: 'acme',
          task: 'intent',
          model: 'intent-zh',
          version: '2',
          outcome: 'ok',
        },
      ]),
    );
    expect(labels).toHaveLength(3);
  });

  it('sums to the requests sent, and counts no path outside the predict API', async () => {
    const sent = [
      app.inject({ method: 'POST', url: '/v1/predict', headers: good, payload: '{"text":"a"}' }),
      app.inject({ method: 'POST', url: '/v1/predict', headers: good, payload: '{' }),
      app.inject({ method: 'PUT', url: '/v1/predict', headers: good, payload: '{}' }),
      app.inject({ method: 'POST', url: '/v1/predict', headers: json, payload: '{}' }),
    ];
    await Promise.all(sent);
    await app.inject({ method: 'GET', url: '/v1/tasks' });
    await app.inject({ method: 'GET', url: '/v1/scan-me-1234' });
    const { byOutcome } = await counted(registry);
    expect(Object.values(byOutcome).reduce((a, b) => a + b, 0)).toBe(sent.length);
  });
});

describe('countClientErrors', () => {
  it('counts a request Node refused when its request line names a predict API path', async () => {
    const registry = new Registry();
    const count = countClientErrors(new RouterMetrics(registry));
    count('/v1/predict:batch', 'HEADERS_TOO_LARGE');
    count('/somewhere/else', 'HEADERS_TOO_LARGE');
    count(undefined, 'REQUEST_TIMEOUT');
    const { labels } = await counted(registry);
    expect(labels).toEqual([
      {
        transport: 'http',
        method: 'predict_batch',
        tenant: '',
        task: '',
        model: '',
        version: '',
        outcome: 'HEADERS_TOO_LARGE',
      },
    ]);
  });
});
