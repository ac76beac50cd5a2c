import { status } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  float32s,
  int64Bytes,
  makeRepository,
  tokenRow,
  writeReluModel,
  type Any,
} from './support/model-host-fixtures';
import { startApp, type StartedApp } from './support/app-process';

jest.setTimeout(60_000);

/** Little-endian FP32 bytes. */
const fp32Bytes = (values: number[]): Buffer => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b;
};

/** Splits a BYTES tensor (4-byte little-endian length, then the bytes) into strings. */
const bytesElements = (buf: Buffer): string[] => {
  const out: string[] = [];
  for (let o = 0; o < buf.length;) {
    const n = buf.readUInt32LE(o);
    out.push(buf.subarray(o + 4, o + 4 + n).toString('utf8'));
    o += 4 + n;
  }
  return out;
};

/** What Triton's classification returns for one row: top k "value:index:label", C formatting. */
const topK = (row: number[], k: number, labels: string[]): string[] =>
  row
    .map((v, i) => ({ v, i }))
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .slice(0, k)
    .map(({ v, i }) => `${v.toFixed(6)}:${i}:${labels[i]}`);

/**
 * Triton's HTTP extensions on the embedded host, spoken as tritonclient.http speaks them: binary
 * tensor data (hand-built bodies, no Content-Type), classification over HTTP and gRPC, the
 * server's extension list and the `{"error"}` shape everywhere.
 */
describe('model host: Triton HTTP extensions', () => {
  let repo: ReturnType<typeof makeRepository>;
  let host: StartedApp;
  let client: RawKServeClient;
  let http: string;
  let labels: string[];

  const ids = tokenRow(7, 5);
  const post = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`${http}${path}`, { method: 'POST', body, headers });
  const split = async (res: Response) => {
    const body = Buffer.from(await res.arrayBuffer());
    const n = Number(res.headers.get('inference-header-content-length'));
    return {
      header: JSON.parse(body.subarray(0, n).toString('utf8')) as Any,
      tail: body.subarray(n),
    };
  };
  const grpcLogits = async (): Promise<Buffer> =>
    (await client.call('ModelInfer', bertRequest('sentiment', [ids])))
      .raw_output_contents[0] as Buffer;

  beforeAll(async () => {
    ensureTinyModels();
    repo = makeRepository({ sentiment: { from: 'sentiment-en' } });
    writeReluModel(repo.dir, 'relu');
    labels = readFileSync(join(repo.dir, 'sentiment', 'labels.txt'), 'utf8')
      .trim()
      .split('\n');
    host = await startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
      },
      { listeners: ['http', 'grpc', 'metrics'], timeoutMs: 45_000 },
    );
    client = new RawKServeClient(host.urls.grpc!);
    http = host.urls.http!;
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await host?.stop('SIGKILL');
    repo?.remove();
  });

  it('lists the extensions by their Triton names', async () => {
    const body = (await (await fetch(`${http}/v2`)).json()) as Any;
    expect(body.extensions).toEqual([
      'classification',
      'model_repository',
      'model_repository(unload_dependents)',
      'schedule_policy',
      'model_configuration',
      'binary_tensor_data',
      'statistics',
    ]);
    const grpcMeta = await client.call('ServerMetadata', {});
    expect(grpcMeta.extensions).toEqual(body.extensions);
  });

  it('takes a hand-built binary request without Content-Type and answers in binary, byte for byte', async () => {
    const tensor = (name: string) => ({
      name,
      shape: [1, 7],
      datatype: 'INT64',
      parameters: { binary_data_size: 56 },
    });
    const header = Buffer.from(
      JSON.stringify({
        id: 'bin-1',
        inputs: [tensor('input_ids'), tensor('attention_mask'), tensor('token_type_ids')],
        outputs: [{ name: 'logits', parameters: { binary_data: true } }],
      }),
    );
    const body = Buffer.concat([
      header,
      int64Bytes(ids),
      int64Bytes(ids.map(() => 1)),
      int64Bytes(ids.map(() => 0)),
    ]);
    const res = await post('/v2/models/sentiment/infer', body, {
      'inference-header-content-length': String(header.length),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const { header: json, tail } = await split(res);
    expect(json).toEqual({
      model_name: 'sentiment',
      model_version: '1',
      id: 'bin-1',
      outputs: [
        { name: 'logits', datatype: 'FP32', shape: [1, 3], parameters: { binary_data_size: 12 } },
      ],
    });
    expect(tail.equals(await grpcLogits())).toBe(true);
  });

  it('mixes JSON and binary inputs; binary_data_output applies unless an output overrides it', async () => {
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          { name: 'input_ids', shape: [1, 7], datatype: 'INT64', data: ids },
          {
            name: 'attention_mask',
            shape: [1, 7],
            datatype: 'INT64',
            parameters: { binary_data_size: 56 },
          },
          { name: 'token_type_ids', shape: [1, 7], datatype: 'INT64', data: ids.map(() => 0) },
        ],
        parameters: { binary_data_output: true },
      }),
    );
    const body = Buffer.concat([header, int64Bytes(ids.map(() => 1))]);
    const binary = await post('/v2/models/sentiment/infer', body, {
      'inference-header-content-length': String(header.length),
      'content-type': 'application/octet-stream',
    });
    const { header: json, tail } = await split(binary);
    expect(json.outputs[0].parameters).toEqual({ binary_data_size: 12 });
    expect(tail.equals(await grpcLogits())).toBe(true);

    const overridden = Buffer.from(
      JSON.stringify({
        ...JSON.parse(header.toString()),
        outputs: [{ name: 'logits', parameters: { binary_data: false } }],
      }),
    );
    const res = await post(
      '/v2/models/sentiment/infer',
      Buffer.concat([overridden, int64Bytes(ids.map(() => 1))]),
      {
        'inference-header-content-length': String(overridden.length),
      },
    );
    expect(res.headers.get('inference-header-content-length')).toBeNull();
    const out = (await res.json()) as Any;
    expect(out.outputs[0].data).toEqual(float32s(await grpcLogits()));
  });

  it('takes a raw binary request (Inference-Header-Content-Length: 0) for a one-input model', async () => {
    const res = await post('/v2/models/relu/infer', fp32Bytes([0.5, -2, 3.25, -0.125]), {
      'inference-header-content-length': '0',
    });
    expect(res.status).toBe(200);
    const { header, tail } = await split(res);
    expect(header.outputs).toEqual([
      { name: 'y', datatype: 'FP32', shape: [1, 4], parameters: { binary_data_size: 16 } },
    ]);
    expect(tail.equals(fp32Bytes([0.5, 0, 3.25, 0]))).toBe(true);
  });

  it('refuses a raw binary request for a model with several inputs, naming them', async () => {
    const res = await post('/v2/models/sentiment/infer', int64Bytes(ids), {
      'inference-header-content-length': '0',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Any).error).toContain(
      "needs a model with exactly one input; model 'sentiment' has 3 (input_ids, attention_mask, token_type_ids)",
    );
  });

  it('classifies over HTTP: top-k "value:index:label" strings as BYTES, per batch row', async () => {
    const x = [0.5, 2.25, -1, 1.75, 3, 0.25, 0.125, 2];
    const res = await post(
      '/v2/models/relu/infer',
      JSON.stringify({
        inputs: [{ name: 'x', shape: [2, 4], datatype: 'FP32', data: x }],
        outputs: [{ name: 'y', parameters: { classification: 2 } }],
      }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as Any).outputs).toEqual([
      {
        name: 'y',
        datatype: 'BYTES',
        shape: [2, 2],
        data: ['2.250000:1:beta', '1.750000:3:delta', '3.000000:0:alpha', '2.000000:3:delta'],
      },
    ]);
  });

  it('classifies over HTTP with the classes in binary form too', async () => {
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          { name: 'x', shape: [1, 4], datatype: 'FP32', parameters: { binary_data_size: 16 } },
        ],
        outputs: [{ name: 'y', parameters: { classification: 3, binary_data: true } }],
      }),
    );
    const res = await post(
      '/v2/models/relu/infer',
      Buffer.concat([header, fp32Bytes([1, 4, 2, 3])]),
      {
        'inference-header-content-length': String(header.length),
      },
    );
    const { header: json, tail } = await split(res);
    expect(json.outputs[0]).toMatchObject({ datatype: 'BYTES', shape: [1, 3] });
    expect(bytesElements(tail)).toEqual([
      '4.000000:1:beta',
      '3.000000:3:delta',
      '2.000000:2:gamma',
    ]);
  });

  it('classifies over gRPC (int64_param) with the same strings as the logits give', async () => {
    const logits = float32s(await grpcLogits());
    const res = await client.call(
      'ModelInfer',
      bertRequest('sentiment', [ids], {
        outputs: [{ name: 'logits', parameters: { classification: { int64_param: 2 } } }],
      }),
    );
    expect(res.outputs[0]).toMatchObject({ name: 'logits', datatype: 'BYTES', shape: [1, 2] });
    expect(bytesElements(res.raw_output_contents[0] as Buffer)).toEqual(topK(logits, 2, labels));
  });

  it('refuses a bad classification count over both protocols', async () => {
    const err = await client.fail(
      'ModelInfer',
      bertRequest('sentiment', [ids], {
        outputs: [{ name: 'logits', parameters: { classification: { int64_param: 0 } } }],
      }),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain(
      "output 'logits': parameter 'classification' must be an integer >= 1",
    );
    const res = await post(
      '/v2/models/relu/infer',
      JSON.stringify({
        inputs: [{ name: 'x', shape: [1, 4], datatype: 'FP32', data: [1, 2, 3, 4] }],
        outputs: [{ name: 'y', parameters: { classification: 'two' } }],
      }),
    );
    expect(res.status).toBe(400);
  });

  it.each([
    [
      'a header length beyond the body',
      '{"inputs":[]}',
      { 'inference-header-content-length': '999' },
      'Inference-Header-Content-Length 999 is larger than the body',
    ],
    [
      'a header length that is not a number',
      '{"inputs":[]}',
      { 'inference-header-content-length': 'abc' },
      'Inference-Header-Content-Length must be a non-negative integer',
    ],
    [
      'binary data the inputs do not account for',
      `{"inputs":[{"name":"x","shape":[1,1],"datatype":"FP32","data":[1]}]}XXXX`,
      { 'inference-header-content-length': '68' },
      "the body carries 4 bytes of binary data after the JSON header, but the inputs' binary_data_size add up to 0",
    ],
    [
      'a binary_data_size past the end',
      `{"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","parameters":{"binary_data_size":16}}]}XXXX`,
      { 'inference-header-content-length': '94' },
      "input 'x': binary_data_size 16 runs past the end of the binary data (4 bytes left)",
    ],
    [
      'shared memory',
      `{"inputs":[{"name":"x","shape":[1,4],"datatype":"FP32","parameters":{"shared_memory_region":"r"}}]}`,
      {},
      "parameter 'shared_memory_region': shared memory is not supported",
    ],
    [
      'an unknown output parameter',
      `{"inputs":[{"name":"x","shape":[1,1],"datatype":"FP32","data":[1]}],"outputs":[{"name":"y","parameters":{"colour":1}}]}`,
      {},
      "output 'y': unsupported parameter 'colour'",
    ],
    [
      'sequence parameters',
      `{"inputs":[{"name":"x","shape":[1,1],"datatype":"FP32","data":[1]}],"parameters":{"sequence_id":3}}`,
      {},
      "parameter 'sequence_id': sequence batching is not supported",
    ],
    ['malformed JSON', '{"inputs": [', {}, 'the request body is not valid JSON'],
  ])('answers %s with 400 {"error"} naming it', async (_what, body, headers, message) => {
    const res = await post('/v2/models/relu/infer', body, headers);
    expect(res.status).toBe(400);
    const json = (await res.json()) as Any;
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error).toContain(message);
  });

  it('answers every error in Triton\'s {"error"} shape: unknown path, unknown model, bad index body', async () => {
    for (const [res, code] of [
      [await fetch(`${http}/v2/nowhere`), 404],
      [await fetch(`${http}/v2/models/sentiment/infer`), 404],
      [
        await post(
          '/v2/models/nope/infer',
          '{"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]}]}',
        ),
        404,
      ],
      [await post('/v2/repository/index', '[1]'), 400],
      [await post('/v2/repository/index', '{"ready":"yes"}'), 400],
    ] as const) {
      expect(res.status).toBe(code);
      const json = (await res.json()) as Any;
      expect(Object.keys(json)).toEqual(['error']);
      expect(typeof json.error).toBe('string');
    }
  });

  it('accepts JSON under any content type, as Triton does', async () => {
    const body = JSON.stringify({
      inputs: [{ name: 'x', shape: [1, 2], datatype: 'FP32', data: [-1, 1] }],
    });
    const variants: Record<string, string>[] = [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/json' },
    ];
    for (const headers of variants) {
      const res = await post('/v2/models/relu/infer', body, headers);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Any).outputs[0].data).toEqual([0, 1]);
    }
  });
});
