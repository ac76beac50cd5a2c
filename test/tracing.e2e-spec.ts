import { closeRedis, createRedis } from '@mesh/config';
import {
  ACME_KEY,
  call,
  grpcCall,
  predictorClient,
  startMesh,
  type Mesh,
} from './support/router-mesh';
import { uniquePrefix } from './support/app-process';
import {
  callerTrace,
  CLIENT,
  otelEnv,
  OtlpReceiver,
  SERVER,
  spansOf as spansIn,
  type ReceivedSpan,
} from './support/otlp-receiver';

/**
 * Tracing end to end: a model host and a router export OTLP/HTTP JSON to a receiver of the
 * test's own. A predict that comes with a `traceparent` continues that trace through the
 * router's spans to the host's; a refused one still leaves its span with the outcome.
 */
jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
const receiver = new OtlpReceiver();
let mesh: Mesh | undefined;

beforeAll(async () => {
  const endpoint = await receiver.start();
  const otel = otelEnv(endpoint);
  mesh = await startMesh(prefix, { routerEnv: otel, hostEnv: otel });
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  await receiver.stop();
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'tracing-e2e',
  });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await closeRedis(redis);
  }
});

/** Waits until the trace holds spans matching every name given (the exporters batch). */
function spansOf(traceId: string, names: string[]): Promise<ReceivedSpan[]> {
  return spansIn(receiver, traceId, names);
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}

const CALL_SPAN = 'inference.GRPCInferenceService/ModelInfer';
/** A call alone on its backend rides the router's lone stream (ADR 0014); others go unary. */
const HOST_SPANS = [
  'inference.GRPCInferenceService/ModelStreamInfer',
  'inference.GRPCInferenceService/ModelInfer',
];

function hostSpan(spans: ReceivedSpan[]): ReceivedSpan {
  const found = spans.filter((s) => s.service === 'model-host' && HOST_SPANS.includes(s.name));
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('tracing', () => {
  it('continues an HTTP predict trace from the router through the backend call to the host', async () => {
    const caller = callerTrace();
    const res = await call(mesh!.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'sentiment', text: 'great service, thanks' },
      headers: { traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const answered = res.headers.get('traceparent') ?? '';
    expect(answered).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));

    const spans = await spansOf(caller.traceId, [
      'POST /v1/predict',
      'route.select',
      'tokenize',
      'postprocess',
      'batch.execute',
      'queue.wait',
    ]);
    const request = one(spans, 'POST /v1/predict');
    expect(request).toMatchObject({
      service: 'router',
      kind: SERVER,
      parentSpanId: caller.spanId,
      attributes: {
        'mesh.tenant': 'acme',
        'mesh.task': 'sentiment',
        'mesh.model': 'sentiment-en',
        'mesh.version': 1,
        'mesh.outcome': 'ok',
        'http.response.status_code': 200,
      },
    });
    // The answer names the request span as the caller's next parent.
    expect(answered.split('-')[2]).toBe(request.spanId);
    for (const stage of ['route.select', 'tokenize', 'postprocess']) {
      expect(one(spans, stage).parentSpanId).toBe(request.spanId);
    }

    const backendCall = spans.find((s) => s.name === CALL_SPAN && s.service === 'router')!;
    expect(backendCall).toMatchObject({
      kind: CLIENT,
      parentSpanId: request.spanId,
      attributes: { 'rpc.method': 'ModelInfer', 'mesh.outcome': 'ok' },
    });

    // Alone on its backend, the traced call still rides the lone stream: its trace context
    // travels in the request's own `traceparent` parameter.
    const host = hostSpan(spans);
    expect(host).toMatchObject({
      name: 'inference.GRPCInferenceService/ModelStreamInfer',
      kind: SERVER,
      parentSpanId: backendCall.spanId,
      attributes: { 'mesh.model': 'sentiment-en', 'mesh.outcome': 'ok' },
    });
    expect(one(spans, 'queue.wait')).toMatchObject({
      service: 'model-host',
      parentSpanId: host.spanId,
    });
    expect(one(spans, 'batch.execute')).toMatchObject({
      service: 'model-host',
      parentSpanId: host.spanId,
      attributes: { 'mesh.batch.id': expect.stringMatching(/^sentiment-en:1:\d+$/) },
    });
  });

  it('traces a batch predict over HTTP as one backend call under its request span', async () => {
    const caller = callerTrace();
    const res = await call(mesh!.http, 'POST', '/v1/predict:batch', {
      key: ACME_KEY,
      body: { task: 'sentiment', texts: ['good', 'bad', 'fine'] },
      headers: { traceparent: caller.traceparent },
    });
    expect(res.status).toBe(200);
    const spans = await spansOf(caller.traceId, ['POST /v1/predict:batch', 'batch.execute']);
    const request = one(spans, 'POST /v1/predict:batch');
    expect(request.parentSpanId).toBe(caller.spanId);
    const backendCall = spans.find((s) => s.name === CALL_SPAN && s.service === 'router')!;
    expect(backendCall).toMatchObject({
      parentSpanId: request.spanId,
      attributes: { 'mesh.batch.rows': 3 },
    });
    const host = hostSpan(spans);
    expect(host.parentSpanId).toBe(backendCall.spanId);
  });

  it('continues a gRPC Predict trace from its metadata and answers its traceparent', async () => {
    const caller = callerTrace();
    const client = predictorClient(mesh!.grpcAddress);
    try {
      const r = await grpcCall(
        client,
        'Predict',
        { task: 'sentiment', text: 'great service, thanks' },
        { authorization: `Bearer ${ACME_KEY}`, traceparent: caller.traceparent },
      );
      expect(r.error).toBeUndefined();
      const answered = String(r.metadata?.get('traceparent')[0] ?? '');
      expect(answered).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
      const spans = await spansOf(caller.traceId, ['mesh.v1.Predictor/Predict', 'batch.execute']);
      const request = one(spans, 'mesh.v1.Predictor/Predict');
      expect(request).toMatchObject({
        kind: SERVER,
        parentSpanId: caller.spanId,
        spanId: answered.split('-')[2],
        attributes: { 'mesh.tenant': 'acme', 'mesh.outcome': 'ok', 'rpc.grpc.status_code': 0 },
      });
      const backendCall = spans.find((s) => s.name === CALL_SPAN && s.service === 'router')!;
      expect(backendCall.parentSpanId).toBe(request.spanId);
      const host = hostSpan(spans);
      expect(host.parentSpanId).toBe(backendCall.spanId);
    } finally {
      client.close();
    }
  });

  it("continues a trace on the host's own HTTP infer, with its outcome", async () => {
    const caller = callerTrace();
    const ids = { datatype: 'INT64', shape: [1, 3], data: [101, 2204, 102] };
    const res = await fetch(`${mesh!.host.urls.http}/v2/models/sentiment-en/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({
        inputs: [
          { name: 'input_ids', ...ids },
          { name: 'attention_mask', ...ids, data: [1, 1, 1] },
          { name: 'token_type_ids', ...ids, data: [0, 0, 0] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const spans = await spansOf(caller.traceId, ['POST /v2/models/{model}/infer', 'batch.execute']);
    const host = one(spans, 'POST /v2/models/{model}/infer');
    expect(host).toMatchObject({
      service: 'model-host',
      kind: SERVER,
      parentSpanId: caller.spanId,
      attributes: { 'mesh.model': 'sentiment-en', 'mesh.outcome': 'ok' },
    });
    expect(one(spans, 'batch.execute').parentSpanId).toBe(host.spanId);

    const refused = callerTrace();
    const bad = await fetch(`${mesh!.host.urls.http}/v2/models/sentiment-en/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: refused.traceparent },
      body: JSON.stringify({ inputs: [{ name: 'input_ids', ...ids }] }),
    });
    expect(bad.status).toBe(400);
    const [badSpan] = await spansOf(refused.traceId, ['POST /v2/models/{model}/infer']);
    expect(badSpan).toMatchObject({
      attributes: { 'mesh.outcome': 'INVALID_ARGUMENT', 'http.response.status_code': 400 },
    });
  });

  it('records a refused predict (bad key) as a span with its outcome', async () => {
    const caller = callerTrace();
    const res = await call(mesh!.http, 'POST', '/v1/predict', {
      key: 'not-a-key',
      body: { task: 'sentiment', text: 'hello' },
      headers: { traceparent: caller.traceparent },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${caller.traceId}-`));
    const spans = await spansOf(caller.traceId, ['POST /v1/predict']);
    expect(one(spans, 'POST /v1/predict')).toMatchObject({
      parentSpanId: caller.spanId,
      attributes: {
        'http.response.status_code': 401,
        'mesh.outcome': res.body.error.code,
      },
    });
    expect(spans.map((s) => s.name)).toEqual(['POST /v1/predict']);
  });

  it('starts a trace of its own for a predict without traceparent', async () => {
    const res = await call(mesh!.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'sentiment', text: 'no trace context here' },
    });
    expect(res.status).toBe(200);
    const [, traceId, spanId] = (res.headers.get('traceparent') ?? '').split('-');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await spansOf(traceId!, ['POST /v1/predict', 'batch.execute']);
    const request = one(spans, 'POST /v1/predict');
    expect(request.spanId).toBe(spanId);
    expect(request.parentSpanId).toBeUndefined();
  });
});
