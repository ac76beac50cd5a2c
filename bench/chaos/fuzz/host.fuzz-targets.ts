import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import { join } from 'node:path';
import {
  rarely,
  binaryJunk,
  bodyOf,
  edgeNumber,
  headerText,
  mostly,
  objectOf,
  wildValue,
} from './fuzz.values';
import { erase, isObject, jsonOf, preview, type AnyFuzzTarget, type Verdict } from './fuzz.target';
import { rawHttp, type RawHttpRequest } from './raw-http.client';
import { grpcVerdict, rawUnary, wireJunk } from './grpc-raw.call';

export interface HostFuzzEndpoints {
  /** KServe v2 HTTP base URL. */
  http: string;
  /** `host:port` of the KServe v2 gRPC listener. */
  grpc: string;
}

const ROOT = join(__dirname, '..', '..', '..');
const MODELS = ['question-type-zh', 'intent-zh', 'sentiment-en', 'text-embed-zh'];
const INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'];
const DATATYPES = ['INT64', 'INT32', 'FP32', 'FP16', 'BF16', 'BYTES', 'BOOL', 'UINT8', 'FP64'];

const modelName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...MODELS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
const version = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.constantFrom('1', '2', '3') },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '99', '1.5', 'latest', '9'.repeat(30)) },
);
const datatype = fc.oneof(
  { weight: 8, arbitrary: fc.constant('INT64') },
  { weight: 2, arbitrary: fc.constantFrom(...DATATYPES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
/** Mostly a sane [rows, length]; sometimes negative, zero, huge or of the wrong rank. */
const shape = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 16 })),
  },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(fc.integer({ min: -3, max: 70 }), fc.constantFrom(2 ** 31, 2 ** 40, 2 ** 53)),
      { maxLength: 4 },
    ),
  },
);
/** Token ids: mostly in a small vocabulary, sometimes out of it or not integers at all. */
const tokenId = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 200 }) },
  { weight: 1, arbitrary: edgeNumber },
);

/** Data that fits `dims` most of the time, else too short, too long, or wild. */
function dataFor(dims: readonly number[]): fc.Arbitrary<unknown> {
  const n = dims.every((d) => d > 0 && d <= 64) ? dims.reduce((a, b) => a * b, 1) : 3;
  return fc.oneof(
    { weight: 8, arbitrary: fc.array(tokenId, { minLength: n, maxLength: n }) },
    { weight: 1, arbitrary: fc.array(tokenId, { maxLength: n + 3 }) },
    { weight: 1, arbitrary: fc.array(wildValue, { maxLength: 4 }) },
    { weight: 1, arbitrary: wildValue },
  );
}

/** One KServe input tensor whose fields are mostly coherent with each other. */
function jsonInput(name: string): fc.Arbitrary<object> {
  return shape.chain((dims) =>
    objectOf({
      name: mostly(
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(name) },
          { weight: 1, arbitrary: fc.constantFrom(...INPUTS) },
        ),
      ),
      datatype: mostly(datatype),
      shape: mostly(fc.constant([...dims])),
      data: mostly(dataFor(dims)),
      parameters: rarely(fc.dictionary(fc.string({ maxLength: 12 }), wildValue, { maxKeys: 2 })),
    }),
  );
}

const kserveJson = objectOf({
  id: fc.option(mostly(fc.string({ maxLength: 20 })), { nil: undefined }),
  inputs: mostly(
    fc.oneof(
      { weight: 8, arbitrary: fc.tuple(...INPUTS.map(jsonInput)) },
      { weight: 1, arbitrary: fc.array(jsonInput('input_ids'), { maxLength: 4 }) },
    ),
  ),
  outputs: fc.option(
    mostly(
      fc.array(
        objectOf({
          name: mostly(fc.constantFrom('logits', 'embedding', 'nope')),
          parameters: fc.option(
            objectOf({
              classification: mostly(fc.integer({ min: -2, max: 5 })),
              binary_data: mostly(fc.boolean()),
            }),
            { nil: undefined },
          ),
        }),
        { maxLength: 2 },
      ),
    ),
    { freq: 2, nil: undefined },
  ),
  parameters: rarely(
    objectOf({
      priority: mostly(fc.integer({ min: -1, max: 4 })),
      timeout: mostly(fc.integer({ min: 0, max: 10_000_000 })),
      binary_data_output: mostly(fc.boolean()),
    }),
  ),
});

/** A request the model accepts: the three inputs, INT64, one coherent [rows, length] shape. */
const validKserveJson = fc
  .record({
    rows: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 1, max: 32 }),
    seed: fc.nat(),
    classification: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  })
  .map(({ rows, length, seed, classification }) => {
    const ids = Array.from({ length: rows * length }, (_, i) => 1 + ((seed + i * 7919) % 5000));
    const input = (name: string, data: number[]) => ({
      name,
      datatype: 'INT64',
      shape: [rows, length],
      data,
    });
    return {
      inputs: [
        input('input_ids', ids),
        input(
          'attention_mask',
          ids.map(() => 1),
        ),
        input(
          'token_type_ids',
          ids.map(() => 0),
        ),
      ],
      ...(classification === undefined
        ? {}
        : { outputs: [{ name: 'logits', parameters: { classification } }] }),
    };
  });

/** POST /v2/models/{m}[/versions/{v}]/infer with fuzzed JSON (and binary-extension) bodies. */
function hostHttpTarget(ep: HostFuzzEndpoints): AnyFuzzTarget {
  const cases = fc
    .record({
      model: modelName,
      version,
      body: bodyOf(validKserveJson, kserveJson),
      headerLength: rarely(fc.oneof(fc.nat({ max: 400 }).map(String), headerText)),
      tail: rarely(binaryJunk),
      type: fc.option(
        fc.constantFrom('application/json', 'application/octet-stream', 'text/plain'),
        { nil: undefined },
      ),
    })
    .map((c): RawHttpRequest => {
      const m = encodeURIComponent(c.model);
      const path = `/v2/models/${m}${c.version ? `/versions/${encodeURIComponent(c.version)}` : ''}/infer`;
      const headers: Record<string, string> = {};
      if (c.type) headers['content-type'] = c.type;
      if (c.headerLength !== undefined) headers['inference-header-content-length'] = c.headerLength;
      const body = c.tail ? Buffer.concat([c.body, c.tail]) : c.body;
      return { method: 'POST', path, headers, body };
    });
  return erase({
    api: 'host KServe v2 HTTP infer',
    cases,
    describe: (r) => preview({ path: r.path, headers: r.headers, body: r.body?.toString() }),
    send: async (r) => {
      const res = await rawHttp(ep.http, r);
      return hostHttpVerdict(res.status, res.headers, res.body);
    },
  });
}

/** 2xx with outputs (JSON or binary extension), or a 4xx with Triton's `{"error": "..."}`. */
export function hostHttpVerdict(
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): Verdict {
  const outcome = String(status);
  if (status >= 200 && status < 300) {
    const headerLength = headers['inference-header-content-length'];
    const json = jsonOf(headerLength === undefined ? body : body.subarray(0, Number(headerLength)));
    return isObject(json) && Array.isArray(json.outputs)
      ? { outcome }
      : { outcome, problem: 'bad 2xx body' };
  }
  const json = jsonOf(body);
  if (status >= 500) return { outcome, problem: `${status}: ${preview(json ?? body.toString())}` };
  if (!isObject(json) || typeof json.error !== 'string' || json.error === '') {
    return { outcome, problem: `undocumented error shape: ${preview(body.toString())}` };
  }
  return { outcome };
}

function loadInference(): grpc.ServiceDefinition {
  const dir = join(ROOT, 'proto');
  const def = protoLoader.loadSync(['inference/grpc_service.proto'], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [dir, join(dir, 'inference')],
  });
  return def['inference.GRPCInferenceService'] as grpc.ServiceDefinition;
}

const int64 = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 200 }).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
);
const inferParameter = fc.oneof(
  fc.record({ int64_param: int64 }),
  fc.record({ string_param: fc.string({ maxLength: 10 }) }),
  fc.record({ bool_param: fc.boolean() }),
  fc.record({ double_param: fc.double({ noNaN: true }) }),
);

/** One ModelInferRequest input: shape and contents mostly agree, raw or typed contents. */
const grpcInput = (name: string) =>
  shape.chain((dims) => {
    const n = dims.every((d) => d > 0 && d <= 64) ? dims.reduce((a, b) => a * b, 1) : 2;
    return fc.record(
      {
        name: fc.oneof(
          { weight: 8, arbitrary: fc.constant(name) },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        ),
        datatype,
        shape: fc.oneof(
          { weight: 8, arbitrary: fc.constant(dims.map(String)) },
          { weight: 1, arbitrary: fc.array(int64, { maxLength: 3 }) },
        ),
        contents: fc.option(
          fc.oneof(
            fc.record({ int64_contents: fc.array(int64, { minLength: n, maxLength: n }) }),
            fc.record({ int_contents: fc.array(fc.integer(), { maxLength: n + 2 }) }),
            fc.record({ fp32_contents: fc.array(fc.float({ noNaN: true }), { maxLength: n }) }),
            fc.record({ bytes_contents: fc.array(binaryJunk, { maxLength: 3 }) }),
          ),
          { freq: 2, nil: undefined },
        ),
        parameters: rarely(
          fc.dictionary(fc.string({ maxLength: 8 }), inferParameter, { maxKeys: 2 }),
        ),
      },
      { requiredKeys: ['name', 'datatype', 'shape'] },
    );
  });

/** A raw tensor per input: often exactly the right byte count, sometimes off. */
const rawContents = fc.array(
  fc.oneof(
    fc
      .array(fc.bigInt({ min: 0n, max: 200n }), { minLength: 1, maxLength: 48 })
      .map((ids) => Buffer.from(BigInt64Array.from(ids).buffer)),
    binaryJunk,
  ),
  { maxLength: 3 },
);

const modelInferRequest = fc.record(
  {
    model_name: modelName,
    model_version: version,
    id: fc.string({ maxLength: 16 }),
    inputs: fc.oneof(
      { weight: 6, arbitrary: fc.tuple(...INPUTS.map(grpcInput)) },
      { weight: 1, arbitrary: fc.array(grpcInput('input_ids'), { maxLength: 3 }) },
    ),
    outputs: fc.array(
      fc.record({
        name: fc.constantFrom('logits', 'embedding', 'x'),
        parameters: fc.dictionary(
          fc.constantFrom('classification', 'binary_data'),
          inferParameter,
          { maxKeys: 1 },
        ),
      }),
      { maxLength: 2 },
    ),
    parameters: fc.dictionary(fc.constantFrom('priority', 'timeout', 'x'), inferParameter, {
      maxKeys: 2,
    }),
    raw_input_contents: fc.option(rawContents, { nil: undefined }),
  },
  { requiredKeys: ['model_name', 'inputs'] },
);

/** A ModelInferRequest the model accepts, with typed or raw contents. */
const validModelInfer = fc
  .record({
    model: fc.constantFrom(...MODELS),
    rows: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 1, max: 32 }),
    seed: fc.nat(),
    raw: fc.boolean(),
  })
  .map(({ model, rows, length, seed, raw }) => {
    const ids = Array.from({ length: rows * length }, (_, i) => 1 + ((seed + i * 7919) % 5000));
    const values = [ids, ids.map(() => 1), ids.map(() => 0)];
    const shape = [String(rows), String(length)];
    return {
      model_name: model,
      inputs: INPUTS.map((name, k) => ({
        name,
        datatype: 'INT64',
        shape,
        ...(raw ? {} : { contents: { int64_contents: values[k]!.map(String) } }),
      })),
      ...(raw
        ? {
            raw_input_contents: values.map((v) =>
              Buffer.from(BigInt64Array.from(v.map(BigInt)).buffer),
            ),
          }
        : {}),
    };
  });

/** inference.GRPCInferenceService/ModelInfer with fuzzed messages or raw bytes. */
function hostGrpcTarget(ep: HostFuzzEndpoints): AnyFuzzTarget {
  const m = loadInference().ModelInfer!;
  const cases = fc.oneof(
    {
      weight: 6,
      arbitrary: validModelInfer.map((msg) => ({ msg, bytes: m.requestSerialize(msg) })),
    },
    {
      weight: 6,
      arbitrary: modelInferRequest.map((msg) => ({ msg, bytes: m.requestSerialize(msg) })),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(wireJunk, binaryJunk).map((bytes) => ({ msg: undefined, bytes })),
    },
  );
  return erase({
    api: 'host gRPC inference.GRPCInferenceService/ModelInfer',
    cases,
    describe: (c) => preview(c.msg ?? c.bytes),
    send: async (c) => grpcVerdict(await rawUnary(ep.grpc, m.path, c.bytes, new grpc.Metadata())),
  });
}

/** Both host inference APIs: KServe v2 HTTP infer and gRPC ModelInfer. */
export function hostFuzzTargets(ep: HostFuzzEndpoints): AnyFuzzTarget[] {
  return [hostHttpTarget(ep), hostGrpcTarget(ep)];
}
