import Fastify from 'fastify';
import { errorCodeOf, traceIdOf } from '../access-log';
import type { CallContext } from '../predict/predict-commands';
import { installAccessLogHook, installRequestIdHook } from './request-id.hook';
import { accessLines } from '../testing/access-lines';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('the router access log hook', () => {
  const { log, lines } = accessLines();
  const app = Fastify();
  installRequestIdHook(app);
  installAccessLogHook(app, log);
  app.post('/v1/tasks/:task/predict', (request) => {
    request.meshCall = {
      served: { tenant: 'acme', task: 'intent', model: 'intent-zh', version: 2 },
    } as CallContext;
    return { label: 'greeting' };
  });
  app.post('/v1/loading', (request, reply) => {
    request.meshCall = { served: { tenant: 'acme', task: 'intent' } } as CallContext;
    return reply
      .status(503)
      .send({ error: { code: 'MODEL_LOADING', message: 'intent-zh v3 is loading' } });
  });
  app.get('/healthz/live', () => ({ ok: true }));
  afterAll(() => app.close());

  beforeEach(() => lines.splice(0));

  it('writes a success line at info: method, route, status, who, model, version, request id', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/tasks/intent/predict?x=1',
      headers: { 'x-request-id': 'req-ok-1', traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    });
    expect(r.statusCode).toBe(200);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        event: 'access',
        msg: 'request',
        requestId: 'req-ok-1',
        transport: 'http',
        method: 'POST',
        route: '/v1/tasks/:task/predict',
        tenant: 'acme',
        task: 'intent',
        model: 'intent-zh',
        version: 2,
        status: 200,
        failed: false,
        traceId: TRACE,
        latencyMs: expect.any(Number),
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('code');
  });

  it("writes a failure line with the error body's code and no trace id without traceparent", async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/loading',
      headers: { 'x-request-id': 'req-fail-1' },
    });
    expect(r.statusCode).toBe(503);
    expect(lines).toEqual([
      expect.objectContaining({
        requestId: 'req-fail-1',
        method: 'POST',
        route: '/v1/loading',
        status: 503,
        failed: true,
        code: 'MODEL_LOADING',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('traceId');
  });

  it('logs an unknown path as requested and leaves non-API routes out', async () => {
    await app.inject({ method: 'GET', url: '/v1/nowhere?a=b' });
    await app.inject({ method: 'GET', url: '/healthz/live' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', route: '/v1/nowhere', status: 404 });
    expect(typeof lines[0]?.requestId).toBe('string');
  });
});

describe('traceIdOf', () => {
  it('takes the trace id of a valid traceparent', () => {
    expect(traceIdOf(`00-${TRACE}-00f067aa0ba902b7-01`)).toBe(TRACE);
    expect(traceIdOf(` 01-${TRACE}-00f067aa0ba902b7-00-extra`)).toBe(TRACE);
  });

  it.each([
    undefined,
    '',
    'garbage',
    `ff-${TRACE}-00f067aa0ba902b7-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`,
  ])('ignores %p', (header) => {
    expect(traceIdOf(header)).toBeUndefined();
  });
});

describe('errorCodeOf', () => {
  it('reads the code of an error body, as text or bytes', () => {
    const body = '{"error":{"code":"RATE_LIMITED","message":"slow down"}}';
    expect(errorCodeOf(body)).toBe('RATE_LIMITED');
    expect(errorCodeOf(Buffer.from(body))).toBe('RATE_LIMITED');
  });

  it('gives undefined for anything else', () => {
    expect(errorCodeOf('{"message":"x"}')).toBeUndefined();
    expect(errorCodeOf('{broken')).toBeUndefined();
    expect(errorCodeOf('plain')).toBeUndefined();
    expect(errorCodeOf(undefined)).toBeUndefined();
  });
});
