/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON and grpc-js dynamic clients are untyped by nature */
import type * as grpc from '@grpc/grpc-js';
import { closeRedis, createRedis } from '@mesh/config';
import { bearer, jobStatus, jobsClient, startWorker, waitForState } from './support/bulk-jobs';
import { ACME_KEY, call, hostPort, startMesh, type Mesh } from './support/router-mesh';
import { uniquePrefix, type StartedApp } from './support/app-process';
import {
  callerTrace,
  CLIENT,
  otelEnv,
  OtlpReceiver,
  SERVER,
  type ReceivedSpan,
} from './support/otlp-receiver';
import { pollUntil } from './support/poll';

/**
 * Bulk jobs traced end to end: a router, a model host and a batch worker export OTLP/HTTP JSON
 * to a receiver of the test's own. A job is one trace: the submit span (router), a span per
 * chunk (worker) under it, the chunk's backend calls under the chunk, the host's ModelInfer
 * under each call, and the job's completion.
 */
jest.setTimeout(180_000);

const prefix = uniquePrefix(__filename);
const receiver = new OtlpReceiver();
let mesh: Mesh | undefined;
let worker: StartedApp | undefined;

/** OTLP SPAN_KIND_CONSUMER: a chunk taken from the queue. */
const CONSUMER = 5;
const CALL_SPAN = 'inference.GRPCInferenceService/ModelInfer';
const HOST_SPAN = /^inference\.GRPCInferenceService\/Model(Stream)?Infer$/;
/** Ten items in chunks of four: chunks 0, 1 and 2. */
const ITEMS = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, text: `review number ${i}` }));
const CHUNKS = 3;

beforeAll(async () => {
  const endpoint = await receiver.start();
  const otel = otelEnv(endpoint);
  mesh = await startMesh(prefix, {
    routerEnv: { ...otel, JOBS_CHUNK_SIZE: '4' },
    hostEnv: otel,
  });
  worker = await startWorker({
    ...otel,
    REDIS_KEY_PREFIX: prefix,
    KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await mesh?.stop();
  await receiver.stop();
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'tracing-bulk-e2e',
  });
  try {
    const keys = await redis.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  } finally {
    await closeRedis(redis);
  }
});

/**
 * The job's trace once it is whole (the exporters batch): every chunk ended ok, each backend
 * call the worker made has the host's span under it, and the completion is in.
 */
function jobTrace(traceId: string): Promise<ReceivedSpan[]> {
  return pollUntil(
    () => {
      const spans = receiver.inTrace(traceId);
      const chunks = spans.filter((s) => s.name === 'bulk.chunk');
      const calls = workerCalls(spans);
      const hosted = calls.every((c) => spans.some((s) => s.parentSpanId === c.spanId));
      const whole =
        chunks.filter((c) => c.attributes['mesh.outcome'] === 'ok').length === CHUNKS &&
        calls.length >= CHUNKS &&
        hosted &&
        spans.some((s) => s.name === 'bulk.job.finish');
      return whole ? spans : undefined;
    },
    { timeoutMs: 60_000, what: `the whole bulk job trace ${traceId}` },
  );
}

function workerCalls(spans: ReceivedSpan[]): ReceivedSpan[] {
  return spans.filter((s) => s.name === CALL_SPAN && s.service === 'batch-worker');
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}

/** Chunk spans under the submit span, calls under chunks, host spans under calls, completion. */
function expectJobTree(spans: ReceivedSpan[], submit: ReceivedSpan, jobId: string): void {
  const chunks = spans.filter((s) => s.name === 'bulk.chunk');
  for (const chunk of chunks) {
    expect(chunk).toMatchObject({
      service: 'batch-worker',
      kind: CONSUMER,
      parentSpanId: submit.spanId,
      attributes: { 'mesh.job.id': jobId, 'mesh.model': 'sentiment-en', 'mesh.version': 1 },
    });
  }
  const written = chunks.filter((c) => c.attributes['mesh.outcome'] === 'ok');
  expect(written.map((c) => c.attributes['mesh.chunk.index']).sort()).toEqual([0, 1, 2]);
  expect(written.map((c) => c.attributes['mesh.chunk.items']).sort()).toEqual([2, 4, 4]);

  const chunkIds = new Set(chunks.map((c) => c.spanId));
  const calls = workerCalls(spans);
  for (const c of calls) {
    expect(c).toMatchObject({ kind: CLIENT, attributes: { 'rpc.method': 'ModelInfer' } });
    expect(chunkIds.has(c.parentSpanId!)).toBe(true);
    const host = spans.find((s) => s.service === 'model-host' && s.parentSpanId === c.spanId);
    // The host names its span after the RPC that carried the call (unary or the lone stream).
    expect(host).toMatchObject({ name: expect.stringMatching(HOST_SPAN), kind: SERVER });
  }
  // Every written chunk made at least one call.
  for (const chunk of written)
    expect(calls.some((c) => c.parentSpanId === chunk.spanId)).toBe(true);

  expect(one(spans, 'bulk.job.finish')).toMatchObject({
    service: 'batch-worker',
    parentSpanId: submit.spanId,
    attributes: { 'mesh.job.id': jobId, 'mesh.job.state': 'completed', 'mesh.outcome': 'ok' },
  });
}

describe('bulk job tracing', () => {
  it('continues the caller trace from the HTTP submit through every chunk to the host', async () => {
    const caller = callerTrace();
    const res = await call(mesh!.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'sentiment', items: ITEMS },
      headers: { traceparent: caller.traceparent },
    });
    expect(res.status).toBe(202);
    const answered = res.headers.get('traceparent') ?? '';
    expect(answered).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    const jobId: string = res.body.jobId;

    const done = await waitForState(mesh!.http, ACME_KEY, jobId, ['completed']);
    expect(done).toMatchObject({ processed: ITEMS.length, traceId: caller.traceId });

    const spans = await jobTrace(caller.traceId);
    const submit = one(spans, 'POST /v1/jobs');
    expect(submit).toMatchObject({
      service: 'router',
      kind: SERVER,
      parentSpanId: caller.spanId,
      spanId: answered.split('-')[2],
      attributes: {
        'mesh.tenant': 'acme',
        'mesh.task': 'sentiment',
        'mesh.model': 'sentiment-en',
        'mesh.version': 1,
        'mesh.job.id': jobId,
        'mesh.job.items': ITEMS.length,
        'mesh.job.chunks': CHUNKS,
        'mesh.outcome': 'ok',
        'http.response.status_code': 202,
      },
    });
    expectJobTree(spans, submit, jobId);
  });

  it('continues a gRPC SubmitJob trace from its metadata and answers its traceparent', async () => {
    const caller = callerTrace();
    const client = jobsClient(mesh!.grpcAddress);
    try {
      const md = bearer(ACME_KEY);
      md.set('traceparent', caller.traceparent);
      let answered = '';
      const submitted = await new Promise<any>((resolve, reject) => {
        const stream = client.submitJob(md, (e: grpc.ServiceError | null, r: any) =>
          e ? reject(e) : resolve(r),
        );
        stream.on('metadata', (m: grpc.Metadata) => {
          answered = String(m.get('traceparent')[0] ?? '');
        });
        stream.write({ task: 'sentiment', items: ITEMS.slice(0, 5) });
        stream.write({ items: ITEMS.slice(5) });
        stream.end();
      });
      expect(answered).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
      await waitForState(mesh!.http, ACME_KEY, submitted.jobId, ['completed']);
      const status = await new Promise<any>((resolve, reject) => {
        client.getJob(
          { jobId: submitted.jobId },
          bearer(ACME_KEY),
          (e: grpc.ServiceError | null, r: any) => (e ? reject(e) : resolve(r)),
        );
      });
      expect(status.traceId).toBe(caller.traceId);

      const spans = await jobTrace(caller.traceId);
      const submit = one(spans, 'mesh.v1.Jobs/SubmitJob');
      expect(submit).toMatchObject({
        service: 'router',
        kind: SERVER,
        parentSpanId: caller.spanId,
        spanId: answered.split('-')[2],
        attributes: {
          'mesh.job.id': submitted.jobId,
          'mesh.job.items': ITEMS.length,
          'mesh.outcome': 'ok',
          'rpc.grpc.status_code': 0,
        },
      });
      expectJobTree(spans, submit, submitted.jobId);
    } finally {
      client.close();
    }
  });

  it('starts a trace of its own for a job submitted without traceparent', async () => {
    const res = await call(mesh!.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'sentiment', items: ITEMS },
    });
    expect(res.status).toBe(202);
    const [, traceId, spanId] = (res.headers.get('traceparent') ?? '').split('-');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    await waitForState(mesh!.http, ACME_KEY, res.body.jobId, ['completed']);
    expect((await jobStatus(mesh!.http, ACME_KEY, res.body.jobId)).traceId).toBe(traceId);
    const spans = await jobTrace(traceId!);
    const submit = one(spans, 'POST /v1/jobs');
    expect(submit.spanId).toBe(spanId);
    expect(submit.parentSpanId).toBeUndefined();
    expectJobTree(spans, submit, res.body.jobId);
  });

  it('records a refused submit (unknown task) as a span with its outcome and no job', async () => {
    const caller = callerTrace();
    const res = await call(mesh!.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'no-such-task', items: ITEMS },
      headers: { traceparent: caller.traceparent },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const spans = await pollUntil(
      () =>
        receiver.inTrace(caller.traceId).length > 0 ? receiver.inTrace(caller.traceId) : undefined,
      { timeoutMs: 30_000, what: 'the refused submit span' },
    );
    expect(spans.map((s) => s.name)).toEqual(['POST /v1/jobs']);
    expect(spans[0]).toMatchObject({
      parentSpanId: caller.spanId,
      attributes: {
        'mesh.tenant': 'acme',
        'mesh.task': 'no-such-task',
        'mesh.outcome': res.body.error.code,
        'http.response.status_code': res.status,
      },
    });
  });
});
