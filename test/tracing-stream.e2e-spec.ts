/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- grpc-js dynamic clients are untyped */
import * as grpc from '@grpc/grpc-js';
import { closeRedis, createRedis } from '@mesh/config';
import { ACME_KEY, predictorClient, startMesh, type Mesh } from './support/router-mesh';
import { uniquePrefix } from './support/app-process';
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
 * PredictStream traced end to end: every message on the stream is a request of its own, with
 * its own server span continuing the stream call's `traceparent` metadata (the proto has no
 * per-message one) and its own backend-call child.
 */
jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
const receiver = new OtlpReceiver();
let mesh: Mesh | undefined;

const STREAM_SPAN = 'mesh.v1.Predictor/PredictStream';
const CALL_SPAN = 'inference.GRPCInferenceService/ModelInfer';

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
    name: 'tracing-stream-e2e',
  });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await closeRedis(redis);
  }
});

describe('PredictStream tracing', () => {
  it("gives each stream message a request span in the caller's trace, each with its backend call", async () => {
    const caller = callerTrace();
    const client = predictorClient(mesh!.grpcAddress);
    try {
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${ACME_KEY}`);
      md.set('traceparent', caller.traceparent);
      const stream = client.PredictStream(md, { deadline: Date.now() + 30_000 });
      const answers: any[] = [];
      let next: () => void = () => undefined;
      stream.on('data', (m: any) => {
        answers.push(m);
        next();
      });
      const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      // One after the other, with different texts: neither merged into the other's backend
      // call nor answered from the response cache, so each has a backend call of its own.
      for (const [id, text] of [
        ['s-1', 'the first message on the stream'],
        ['s-2', 'a second, different message'],
      ]) {
        const answered = new Promise<void>((resolve) => (next = resolve));
        stream.write({ id, request: { task: 'sentiment', text } });
        await answered;
      }
      stream.end();
      expect((await status).code).toBe(grpc.status.OK);
      expect(answers.map((a) => [a.id, a.result])).toEqual([
        ['s-1', 'response'],
        ['s-2', 'response'],
      ]);
    } finally {
      client.close();
    }

    const spans = await pollUntil(
      () => {
        const all = receiver.inTrace(caller.traceId);
        const requests = all.filter((s) => s.name === STREAM_SPAN);
        const calls = all.filter((s) => s.name === CALL_SPAN && s.service === 'router');
        return requests.length >= 2 && calls.length >= 2 ? all : undefined;
      },
      { timeoutMs: 30_000, what: `two stream requests of trace ${caller.traceId}` },
    );
    const requests = spans.filter((s) => s.name === STREAM_SPAN);
    expect(requests).toHaveLength(2);
    const ids = requests.map((r) => r.attributes['mesh.request_id']).sort();
    expect(ids).toEqual(['s-1', 's-2']);
    for (const request of requests) {
      expect(request).toMatchObject({
        service: 'router',
        kind: SERVER,
        parentSpanId: caller.spanId,
        attributes: {
          'rpc.method': 'PredictStream',
          'mesh.tenant': 'acme',
          'mesh.task': 'sentiment',
          'mesh.outcome': 'ok',
          'rpc.grpc.status_code': 0,
        },
      });
      const children = spans.filter(
        (s: ReceivedSpan) => s.name === CALL_SPAN && s.parentSpanId === request.spanId,
      );
      expect(children).toHaveLength(1);
      expect(children[0]).toMatchObject({ service: 'router', kind: CLIENT });
    }
  });
});
