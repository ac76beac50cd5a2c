import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import { join } from 'node:path';
import { ERROR_TABLE, isErrorCode } from '@mesh/errors';
import { anyText, bodyOf, binaryJunk, headerText, mostly, objectOf } from './fuzz.values';
import { erase, isObject, jsonOf, preview, type AnyFuzzTarget, type Verdict } from './fuzz.target';
import { rawHttp, type RawHttpRequest } from './raw-http.client';
import { grpcVerdict, rawBidi, rawUnary, wireJunk } from './grpc-raw.call';

export interface RouterFuzzEndpoints {
  http: string;
  /** `host:port` of the router's gRPC listener. */
  grpc: string;
  /** A key of a tenant with generous limits (so answers are mostly about the input). */
  key: string;
  /** Another tenant's key (its rate limits and task list differ). */
  otherKey: string;
  /** Tasks the routing table serves (the generators mostly pick these). */
  tasks: readonly string[];
}

const ROOT = join(__dirname, '..', '..', '..');
function taskOf(tasks: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...tasks) },
    { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9._-]{0,70}$/) },
  );
}

/** Requests the API accepts: a served task, any text (mostly short), an optional pair. */
const validPredict = (tasks: readonly string[]) =>
  fc
    .record({
      task: fc.constantFrom(...tasks),
      text: fc.string({ unit: 'grapheme', maxLength: 60 }),
      textPair: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
    })
    .map(({ textPair, ...rest }) => (textPair === undefined ? rest : { ...rest, textPair }));
const validBatch = (tasks: readonly string[]) =>
  fc.record({
    task: fc.constantFrom(...tasks),
    texts: fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), {
      minLength: 1,
      maxLength: 10,
    }),
  });

const predictBody = (task: fc.Arbitrary<string>) =>
  objectOf({
    task: mostly(task),
    text: mostly(anyText),
    textPair: fc.option(mostly(anyText), { nil: undefined }),
  });
const batchBody = (task: fc.Arbitrary<string>) =>
  objectOf({
    task: mostly(task),
    texts: mostly(
      fc.oneof(
        { weight: 5, arbitrary: fc.array(anyText, { minLength: 1, maxLength: 12 }) },
        { weight: 1, arbitrary: fc.array(fc.constant('a'), { minLength: 200, maxLength: 400 }) },
        { weight: 1, arbitrary: fc.array(mostly(fc.string()), { maxLength: 6 }) },
      ),
    ),
  });

function authOf(ep: RouterFuzzEndpoints): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${ep.key}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${ep.otherKey}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: headerText },
  );
}

const contentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-8',
      'application/x-ndjson',
      'multipart/form-data; boundary=x',
      'APPLICATION/JSON',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** HTTP POST of fuzzed bodies and headers to one router endpoint. */
function routerHttpTarget(
  ep: RouterFuzzEndpoints,
  path: '/v1/predict' | '/v1/predict:batch',
  valid: fc.Arbitrary<object>,
  body: fc.Arbitrary<object>,
): AnyFuzzTarget {
  const cases = fc
    .record({
      auth: authOf(ep),
      type: contentType,
      body: bodyOf(valid, body),
      requestId: fc.option(headerText, { freq: 4, nil: undefined }),
      traceparent: fc.option(headerText, { freq: 6, nil: undefined }),
      sticky: fc.option(headerText, { freq: 6, nil: undefined }),
    })
    .map((c): RawHttpRequest => {
      const headers: Record<string, string> = {};
      if (c.auth !== undefined) headers.authorization = c.auth;
      if (c.type !== undefined) headers['content-type'] = c.type;
      if (c.requestId !== undefined) headers['x-request-id'] = c.requestId;
      if (c.traceparent !== undefined) headers.traceparent = c.traceparent;
      if (c.sticky !== undefined) headers['x-mesh-sticky-key'] = c.sticky;
      return { method: 'POST', path, headers, body: c.body };
    });
  return erase({
    api: `router HTTP POST ${path}`,
    cases,
    describe: (r) => preview({ headers: r.headers, body: r.body?.toString() }),
    send: async (r) => {
      const res = await rawHttp(ep.http, r);
      return routerHttpVerdict(res.status, res.body, path === '/v1/predict' ? 'predict' : 'batch');
    },
  });
}

/** 2xx with the documented answer, or a 4xx in the router's error shape with its table status. */
export function routerHttpVerdict(
  status: number,
  body: Buffer,
  kind: 'predict' | 'batch',
): Verdict {
  const json = jsonOf(body);
  if (status >= 200 && status < 300) {
    const ok =
      isObject(json) &&
      typeof json.model === 'string' &&
      typeof json.version === 'number' &&
      typeof json.latencyMs === 'number' &&
      (kind === 'batch'
        ? Array.isArray(json.results)
        : typeof json.label === 'string' || Array.isArray(json.embedding));
    return ok ? { outcome: String(status) } : { outcome: String(status), problem: 'bad 2xx body' };
  }
  const error = isObject(json) && isObject(json.error) ? json.error : undefined;
  const code = error?.code;
  const outcome = `${status} ${typeof code === 'string' ? code : '?'}`;
  if (status >= 500) return { outcome, problem: `${status}: ${preview(json ?? body.toString())}` };
  if (!error || !isErrorCode(code) || typeof error.message !== 'string' || error.message === '') {
    return { outcome, problem: `undocumented error shape: ${preview(body.toString())}` };
  }
  if (ERROR_TABLE[code].http !== status) {
    return {
      outcome,
      problem: `${code} answered with ${status}, table says ${ERROR_TABLE[code].http}`,
    };
  }
  return { outcome };
}

function loadPredictor(): grpc.ServiceDefinition {
  const def = protoLoader.loadSync(join(ROOT, 'proto', 'mesh', 'v1', 'predictor.proto'), {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return def['mesh.v1.Predictor'] as grpc.ServiceDefinition;
}

/** Printable ASCII: what grpc-js lets a client put in a text metadata value. */
const metadataText = fc
  .string({ unit: 'grapheme-ascii', maxLength: 40 })
  .map((s) => s.replace(/[^\x20-\x7e]/g, ''));

/** A PredictRequest with any fields missing and wild strings in the rest. */
const predictMessage = (tasks: readonly string[]) =>
  fc.record(
    { task: taskOf(tasks), text: anyText, textPair: fc.option(anyText, { nil: undefined }) },
    { requiredKeys: [] },
  );

/** mesh.v1.Predictor Predict / PredictBatch: well-typed messages with wild strings, or raw bytes. */
function routerGrpcTarget(
  ep: RouterFuzzEndpoints,
  method: 'Predict' | 'PredictBatch',
): AnyFuzzTarget {
  const service = loadPredictor();
  const m = service[method]!;
  const message =
    method === 'Predict'
      ? predictMessage(ep.tasks)
      : fc.record(
          { task: taskOf(ep.tasks), texts: fc.array(anyText, { maxLength: 12 }) },
          { requiredKeys: [] },
        );
  const cases = fc.record({
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant(`Bearer ${ep.key}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${ep.otherKey}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: metadataText },
    ),
    payload: fc.oneof(
      {
        weight: 6,
        arbitrary: (method === 'Predict' ? validPredict(ep.tasks) : validBatch(ep.tasks)).map(
          (msg) => m.requestSerialize(msg),
        ),
      },
      { weight: 6, arbitrary: message.map((msg) => m.requestSerialize(msg)) },
      { weight: 1, arbitrary: wireJunk },
      { weight: 1, arbitrary: binaryJunk },
    ),
    requestId: fc.option(metadataText, { freq: 4, nil: undefined }),
  });
  return erase({
    api: `router gRPC mesh.v1.Predictor/${method}`,
    cases,
    describe: (c) => preview({ auth: c.auth, payload: c.payload }),
    send: async (c) => {
      const md = new grpc.Metadata();
      if (c.auth !== undefined) md.set('authorization', c.auth);
      if (c.requestId !== undefined) md.set('x-request-id', c.requestId);
      const res = await rawUnary(ep.grpc, m.path, c.payload, md);
      return grpcVerdict(res, (err, trailers) => {
        const code = trailers?.get('x-mesh-error-code')[0];
        if (!isErrorCode(code)) return 'no x-mesh-error-code in the trailers';
        return ERROR_TABLE[code].grpc === err.code
          ? undefined
          : `${code} sent with status ${err.code}`;
      });
    },
  });
}

/**
 * mesh.v1.Predictor/PredictStream: a few messages per stream, each a valid predict, a fuzzed
 * one or junk bytes. The stream must end OK with one answer per message, and every error answer
 * must carry a documented mesh code with its table's gRPC code (never a server fault).
 */
function routerStreamTarget(ep: RouterFuzzEndpoints): AnyFuzzTarget {
  const m = loadPredictor().PredictStream!;
  const message = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({ id: metadataText, request: validPredict(ep.tasks) })
        .map((msg) => m.requestSerialize(msg)),
    },
    {
      weight: 6,
      arbitrary: fc
        .record({ id: metadataText, request: predictMessage(ep.tasks) }, { requiredKeys: [] })
        .map((msg) => m.requestSerialize(msg)),
    },
    { weight: 1, arbitrary: wireJunk },
    { weight: 1, arbitrary: binaryJunk },
  );
  const cases = fc.record({
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant(`Bearer ${ep.key}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${ep.otherKey}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  });
  return erase({
    api: 'router gRPC mesh.v1.Predictor/PredictStream',
    cases,
    describe: (c) => preview({ auth: c.auth, messages: c.messages }),
    send: async (c) => {
      const md = new grpc.Metadata();
      if (c.auth !== undefined) md.set('authorization', c.auth);
      const res = await rawBidi(ep.grpc, m.path, c.messages, md);
      const status = grpc.status[res.status.code] ?? String(res.status.code);
      if (res.status.code !== grpc.status.OK) {
        return {
          outcome: `stream ${status}`,
          problem: `stream ended ${status}: ${res.status.details}`,
        };
      }
      if (res.answers.length !== c.messages.length) {
        return {
          outcome: 'stream OK',
          problem: `${res.answers.length} answers to ${c.messages.length} messages`,
        };
      }
      let inStreamErrors = 0;
      for (const bytes of res.answers) {
        const a = m.responseDeserialize(bytes) as {
          result?: string;
          error?: { code: grpc.status; meshCode: string; message: string };
        };
        if (a.result === 'response') continue;
        const e = a.error;
        if (!e || !isErrorCode(e.meshCode) || e.message === '') {
          return { outcome: 'stream OK', problem: `undocumented answer: ${preview(a)}` };
        }
        if (ERROR_TABLE[e.meshCode].grpc !== e.code) {
          return { outcome: 'stream OK', problem: `${e.meshCode} sent with code ${e.code}` };
        }
        if (ERROR_TABLE[e.meshCode].http >= 500) {
          return { outcome: `error ${e.meshCode}`, problem: `${e.meshCode}: ${e.message}` };
        }
        inStreamErrors++;
      }
      return { outcome: inStreamErrors > 0 ? 'stream OK, errors in-stream' : 'stream OK' };
    },
  });
}

/**
 * Every router API the fuzzer covers: HTTP predict and batch, gRPC Predict, PredictBatch and
 * PredictStream.
 */
export function routerFuzzTargets(ep: RouterFuzzEndpoints): AnyFuzzTarget[] {
  return [
    routerHttpTarget(ep, '/v1/predict', validPredict(ep.tasks), predictBody(taskOf(ep.tasks))),
    routerHttpTarget(ep, '/v1/predict:batch', validBatch(ep.tasks), batchBody(taskOf(ep.tasks))),
    routerGrpcTarget(ep, 'Predict'),
    routerGrpcTarget(ep, 'PredictBatch'),
    routerStreamTarget(ep),
  ];
}
