/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- grpc-js dynamic clients are untyped */
import * as grpc from '@grpc/grpc-js';
import { closeRedis, createRedis } from '@mesh/config';
import { connect } from 'node:net';
import { sumByLabel } from '../libs/telemetry/src/testing/prometheus-text';
import { uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ACME_KEY,
  call,
  grpcCall,
  metricSum,
  postExpectContinue,
  predictorClient,
  startMesh,
  type Mesh,
} from './support/router-mesh';

jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
let mesh: Mesh;
let client: any;

const REQUESTS = 'mesh_router_requests_total';
const GOOD = { task: 'sentiment', text: 'the service was fine' };

beforeAll(async () => {
  mesh = await startMesh(prefix, { routerEnv: { ROUTER_ACCESS_LOG_SAMPLE: '1' } });
  client = predictorClient(mesh.grpcAddress);
});

afterAll(async () => {
  client?.close();
  await mesh?.stop();
  const redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'refusals-e2e' });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

/** `mesh_router_requests_total` by outcome, for one transport. */
async function outcomes(transport: 'http' | 'grpc'): Promise<Map<string, number>> {
  const text = (await call(mesh.http, 'GET', '/metrics')).body as string;
  return sumByLabel(text, 'mesh_router_requests_total', 'outcome', { transport });
}

/** How each outcome's count moved while `send` ran (outcomes that did not move left out). */
async function moved(transport: 'http' | 'grpc', send: () => Promise<unknown>) {
  const before = await outcomes(transport);
  await send();
  const after = await outcomes(transport);
  const delta: Record<string, number> = {};
  for (const [outcome, n] of after) {
    const d = n - (before.get(outcome) ?? 0);
    if (d !== 0) delta[outcome] = d;
  }
  return delta;
}

const key = { authorization: `Bearer ${ACME_KEY}` };

describe('every HTTP answer of the predict API is counted once, by its outcome', () => {
  it.each([
    [
      'an answer',
      () => call(mesh.http, 'POST', '/v1/predict', { key: ACME_KEY, body: GOOD }),
      'ok',
    ],
    ['no key', () => call(mesh.http, 'POST', '/v1/predict', { body: GOOD }), 'UNAUTHENTICATED'],
    [
      'a bad key',
      () => call(mesh.http, 'POST', '/v1/predict', { key: 'not-a-key', body: GOOD }),
      'UNAUTHENTICATED',
    ],
    [
      'bad JSON',
      () => call(mesh.http, 'POST', '/v1/predict', { key: ACME_KEY, raw: '{"text":' }),
      'INVALID_JSON',
    ],
    [
      'a body the schema refuses',
      () => call(mesh.http, 'POST', '/v1/predict:batch', { key: ACME_KEY, body: { texts: 3 } }),
      'INVALID_ARGUMENT',
    ],
    [
      'a body over the limit',
      () =>
        postExpectContinue(
          `${mesh.http}/v1/predict`,
          JSON.stringify({ ...GOOD, text: 'x'.repeat(300 * 1024) }),
          key,
        ),
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'another media type',
      () =>
        call(mesh.http, 'POST', '/v1/tokenize', {
          raw: 'hello',
          headers: { ...key, 'content-type': 'text/plain' },
        }),
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'the wrong method',
      () => call(mesh.http, 'GET', '/v1/predict', { key: ACME_KEY }),
      'METHOD_NOT_ALLOWED',
    ],
    ['headers over the limit', () => oversizedHeaders('/v1/predict'), 'HEADERS_TOO_LARGE'],
    [
      // Malformed tracing headers are dropped, not refused: the request is answered.
      'a malformed x-request-id and traceparent',
      () =>
        call(mesh.http, 'POST', '/v1/predict', {
          key: ACME_KEY,
          body: GOOD,
          headers: { 'x-request-id': 'has spaces in it', traceparent: '00-zz-01' },
        }),
      'ok',
    ],
  ] as const)('%s', async (_what, send, outcome) => {
    let answer: { status: number; body: any } | undefined;
    const delta = await moved('http', async () => (answer = await send()));
    if (outcome !== 'ok') expect(answer!.body).toMatchObject({ error: { code: outcome } });
    else expect(answer!.status).toBe(200);
    expect(delta).toEqual({ [outcome]: 1 });
  });

  it('labels a refusal before the key with no tenant, and one after it with its tenant', async () => {
    await call(mesh.http, 'POST', '/v1/tokenize', { key: 'not-a-key', body: GOOD });
    await call(mesh.http, 'POST', '/v1/tokenize', { key: ACME_KEY, body: { task: 'sentiment' } });
    const text = (await call(mesh.http, 'GET', '/metrics')).body as string;
    const labels = { transport: 'http', method: 'tokenize', task: '', model: '', version: '' };
    expect(metricSum(text, REQUESTS, { ...labels, tenant: '', outcome: 'UNAUTHENTICATED' })).toBe(
      1,
    );
    expect(
      metricSum(text, REQUESTS, { ...labels, tenant: 'acme', outcome: 'INVALID_ARGUMENT' }),
    ).toBe(1);
  });

  it('counts no path outside the predict API', async () => {
    const delta = await moved('http', async () => {
      await call(mesh.http, 'GET', '/v1/no-such-path', { key: ACME_KEY });
      await call(mesh.http, 'POST', '/v1/predict/extra', { key: ACME_KEY, body: GOOD });
    });
    expect(delta).toEqual({});
  });
});

describe('every gRPC answer is counted once, by its outcome', () => {
  it.each([
    ['an answer', () => grpcCall(client, 'Predict', GOOD, key), 'ok'],
    [
      'a bad key',
      () => grpcCall(client, 'Predict', GOOD, { authorization: 'Bearer nope' }),
      'UNAUTHENTICATED',
    ],
    [
      'an invalid argument',
      () => grpcCall(client, 'PredictBatch', { task: 'sentiment', texts: [] }, key),
      'INVALID_ARGUMENT',
    ],
    [
      'bytes that are no PredictRequest',
      () => rawPredict(Buffer.from([0x0a, 0x64, 0x41])),
      'INVALID_ARGUMENT',
    ],
  ] as const)('%s', async (_what, send, outcome) => {
    let answer: { error?: grpc.ServiceError } | undefined;
    const delta = await moved('grpc', async () => (answer = await send()));
    if (outcome === 'ok') expect(answer!.error).toBeUndefined();
    else expect(answer!.error?.metadata.get('x-mesh-error-code')).toEqual([outcome]);
    expect(delta).toEqual({ [outcome]: 1 });
  });

  it('counts each PredictStream message: a good one and a bad one', async () => {
    const answers: any[] = [];
    const delta = await moved('grpc', async () => {
      const md = new grpc.Metadata();
      md.set('authorization', key.authorization);
      const stream = client.PredictStream(md, { deadline: Date.now() + 30_000 });
      stream.on('data', (m: any) => answers.push(m));
      const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      stream.write({ id: 'good-1', request: GOOD });
      stream.write({ id: 'bad-1', request: { task: 'sentiment', text: '' } });
      stream.end();
      expect((await status).code).toBe(grpc.status.OK);
    });
    expect(
      answers.map((a) => [a.id, a.result === 'error' ? a.error.meshCode : 'ok']).sort(),
    ).toEqual([
      ['bad-1', 'INVALID_ARGUMENT'],
      ['good-1', 'ok'],
    ]);
    expect(delta).toEqual({ ok: 1, INVALID_ARGUMENT: 1 });
    // Each message is its own access line, under its id.
    const lines = await accessLines(['good-1', 'bad-1']);
    expect(lines.map((l) => [l.requestId, l.method, l.status, l.code])).toEqual([
      ['good-1', 'PredictStream', 0, undefined],
      ['bad-1', 'PredictStream', grpc.status.INVALID_ARGUMENT, 'INVALID_ARGUMENT'],
    ]);
  });

  it('writes an access line per unary call, with the mesh code of a failure', async () => {
    await grpcCall(client, 'Predict', GOOD, { ...key, 'x-request-id': 'refusals-grpc-ok' });
    await grpcCall(
      client,
      'Predict',
      { task: 'sentiment', text: '' },
      { ...key, 'x-request-id': 'refusals-grpc-bad' },
    );
    const lines = await accessLines(['refusals-grpc-ok', 'refusals-grpc-bad']);
    const byId = Object.fromEntries(lines.map((l) => [l.requestId, l]));
    expect(byId['refusals-grpc-ok']).toMatchObject({
      transport: 'grpc',
      method: 'Predict',
      status: 0,
      failed: false,
      tenant: 'acme',
    });
    expect(byId['refusals-grpc-ok']).not.toHaveProperty('code');
    expect(byId['refusals-grpc-bad']).toMatchObject({
      transport: 'grpc',
      method: 'Predict',
      status: grpc.status.INVALID_ARGUMENT,
      failed: true,
      code: 'INVALID_ARGUMENT',
    });
  });
});

/** A Predict call whose request is the given bytes, not an encoded PredictRequest. */
function rawPredict(bytes: Buffer): Promise<{ error?: grpc.ServiceError }> {
  const raw = new grpc.Client(mesh.grpcAddress, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', key.authorization);
  return new Promise((resolve) =>
    raw.makeUnaryRequest(
      '/mesh.v1.Predictor/Predict',
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      (error) => {
        raw.close();
        resolve(error ? { error } : {});
      },
    ),
  );
}

/** The router's access lines of these request ids, in that order (they are flushed in batches). */
function accessLines(ids: string[]): Promise<Record<string, unknown>[]> {
  return pollUntil(
    () => {
      const byId = new Map<unknown, Record<string, unknown>>();
      for (const line of mesh.router.logs) {
        if (!line.includes('"event":"access"')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (ids.includes(entry.requestId as string)) byId.set(entry.requestId, entry);
      }
      return byId.size === ids.length ? ids.map((id) => byId.get(id)!) : undefined;
    },
    { timeoutMs: 5_000, what: `access lines of ${ids.join(', ')}` },
  );
}

/**
 * A predict whose headers are over Node's limit, written in one go (so the bytes Node fails on
 * start with the request line); answered before Fastify sees it.
 */
function oversizedHeaders(path: string): Promise<{ status: number; body: any }> {
  const url = new URL(mesh.http);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`POST ${path} HTTP/1.1\r\nHost: r\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({
        status: Number(text.split(' ')[1]),
        body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)),
      }),
    );
  });
}
