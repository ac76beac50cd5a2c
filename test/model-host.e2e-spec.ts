import { Metadata, status } from '@grpc/grpc-js';
import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  float32s,
  int64Bytes,
  makeRepository,
  tokenRow,
  type Any,
} from './support/model-host-fixtures';
import { samplesNamed } from '../libs/telemetry/src/testing/prometheus-text';
import { startApp, type StartedApp } from './support/app-process';

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(60_000);

const REPORT_C = `
name: "{name}"
platform: "onnxruntime_onnx"
max_batch_size: 32
input [
  { name: "input_ids" data_type: TYPE_INT64 dims: [ -1, -1 ] },
  { name: "attention_mask" data_type: TYPE_INT64 dims: [ -1, -1 ] },
  { name: "token_type_ids" data_type: TYPE_INT64 dims: [ -1, -1 ] }
]
output [
  { name: "logits" data_type: TYPE_FP32 dims: [ -1, 3 ] }
]
dynamic_batching {
  preferred_batch_size: [ 8, 16, 32 ]
  max_queue_delay_microseconds: 5000
}
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

const REPORT_A = `
name: "{name}"
platform: "pytorch_libtorch"
input [
  { name: "INPUT__0" data_type: TYPE_INT64 dims: [1, 512] },
  { name: "INPUT__1" data_type: TYPE_INT64 dims: [1, 512] }
]
output [
  { name: "OUTPUT__0" data_type: TYPE_INT64 dims: [1, 1] }
]
instance_group [ { count: 1 } ]
`;

const MAX_MESSAGE = 4 * 1024 * 1024;

describe('model host over the wire (control mode none)', () => {
  let repo: ReturnType<typeof makeRepository>;
  let host: StartedApp;
  let client: RawKServeClient;
  let http: string;

  beforeAll(async () => {
    ensureTinyModels();
    repo = makeRepository({
      sentiment: { from: 'sentiment-en' },
      // Pads freely, so the trimming test below batches lengths 3, 9 and 17 together.
      embed: {
        from: 'text-embed-zh',
        edit: (t) => `${t}\nparameters { key: "max_padding_ratio" value: { string_value: "0" } }\n`,
      },
      'report-c': { from: 'sentiment-en', config: REPORT_C },
      torch: { from: 'sentiment-en', config: REPORT_A },
      badsha: {
        from: 'sentiment-en',
        edit: (t) =>
          `${t}\nparameters { key: "model_sha256_v1" value: { string_value: "${'0'.repeat(64)}" } }\n`,
      },
    });
    host = await startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
        GRPC_MAX_MESSAGE_BYTES: String(MAX_MESSAGE),
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

  describe('gRPC', () => {
    it('answers ServerLive, ServerReady, ServerMetadata and Health/Check', async () => {
      expect(await client.call('ServerLive', {})).toEqual({ live: true });
      expect(await client.call('ServerReady', {})).toEqual({ ready: true });
      const meta = await client.call('ServerMetadata', {});
      expect(meta.name).toBe('model-mesh-host');
      expect(meta.extensions).toContain('model_repository');
      expect(await client.call('Check', { service: '' }, 'health')).toEqual({ status: 'SERVING' });
      const unknown = await client
        .call('Check', { service: 'nope' }, 'health')
        .catch((e: Any) => e);
      expect(unknown.code).toBe(status.NOT_FOUND);
    });

    it('reports ModelReady per model and version', async () => {
      expect(await client.call('ModelReady', { name: 'sentiment', version: '' })).toEqual({
        ready: true,
      });
      expect(await client.call('ModelReady', { name: 'sentiment', version: '1' })).toEqual({
        ready: true,
      });
      expect(await client.call('ModelReady', { name: 'sentiment', version: '2' })).toEqual({
        ready: false,
      });
      expect(await client.call('ModelReady', { name: 'torch', version: '' })).toEqual({
        ready: false,
      });
    });

    it('returns ModelMetadata with the batch dimension and ModelConfig as config.pbtxt says', async () => {
      const meta = await client.call('ModelMetadata', { name: 'sentiment', version: '' });
      expect(meta).toMatchObject({
        name: 'sentiment',
        versions: ['1'],
        platform: 'onnxruntime_onnx',
      });
      expect(meta.inputs[0]).toEqual({ name: 'input_ids', datatype: 'INT64', shape: [-1, -1] });
      expect(meta.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: [-1, 3] }]);
      const { config } = await client.call('ModelConfig', { name: 'sentiment', version: '' });
      expect(config).toMatchObject({
        name: 'sentiment',
        platform: 'onnxruntime_onnx',
        max_batch_size: 64,
      });
      expect(config.dynamic_batching.preferred_batch_size).toEqual([8, 16, 32]);
      expect(config.input[0]).toMatchObject({
        name: 'input_ids',
        data_type: 'TYPE_INT64',
        dims: [-1],
      });
    });

    it('runs ModelInfer with raw_input_contents and with typed contents, same result', async () => {
      const row = tokenRow(12, 1);
      const raw = await client.call('ModelInfer', bertRequest('sentiment', [row], { id: 'req-1' }));
      expect(raw).toMatchObject({ model_name: 'sentiment', model_version: '1', id: 'req-1' });
      expect(raw.outputs).toMatchObject([{ name: 'logits', datatype: 'FP32', shape: [1, 3] }]);
      const logits = float32s(raw.raw_output_contents[0]);
      expect(logits).toHaveLength(3);
      const shape = [1, 12];
      const typed = await client.call('ModelInfer', {
        model_name: 'sentiment',
        model_version: '1',
        inputs: [
          { name: 'input_ids', datatype: 'INT64', shape, contents: { int64_contents: row } },
          {
            name: 'attention_mask',
            datatype: 'INT64',
            shape,
            contents: { int64_contents: row.map(() => 1) },
          },
          {
            name: 'token_type_ids',
            datatype: 'INT64',
            shape,
            contents: { int64_contents: row.map(() => 0) },
          },
        ],
      });
      const typedLogits = float32s(typed.raw_output_contents[0]);
      typedLogits.forEach((v, i) => expect(v).toBeCloseTo(logits[i]!, 5));
    });

    it('echoes x-request-id in gRPC response metadata and the HTTP response header', async () => {
      const md = new Metadata();
      md.set('x-request-id', 'trace-123');
      const echoed = await new Promise<unknown>((resolve, reject) => {
        const call = client.inference.ModelInfer(
          bertRequest('sentiment', [tokenRow(6, 11)]),
          md,
          (err: Error | null) => (err ? reject(err) : undefined),
        );
        call.on('metadata', (m: Metadata) => resolve(m.get('x-request-id')[0]));
      });
      expect(echoed).toBe('trace-123');
      const ids = tokenRow(6, 12);
      const t = (name: string, data: number[]) => ({
        name,
        shape: [1, 6],
        datatype: 'INT64',
        data,
      });
      const res = await fetch(`${http}/v2/models/sentiment/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'trace-456' },
        body: JSON.stringify({
          inputs: [
            t('input_ids', ids),
            t(
              'attention_mask',
              ids.map(() => 1),
            ),
            t(
              'token_type_ids',
              ids.map(() => 0),
            ),
          ],
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe('trace-456');
    });

    it('streams ModelStreamInfer responses, errors in error_message without ending the stream', async () => {
      const call = client.inference.ModelStreamInfer();
      const responses: Any[] = [];
      const done = new Promise<void>((resolve, reject) => {
        call.on('data', (r: Any) => responses.push(r));
        call.on('end', resolve);
        call.on('error', reject);
      });
      call.write(bertRequest('sentiment', [tokenRow(8, 2)], { id: 'a' }));
      call.write(bertRequest('nope', [tokenRow(8, 3)], { id: 'b' }));
      call.write(bertRequest('sentiment', [tokenRow(5, 4)], { id: 'c' }));
      call.end();
      await done;
      expect(responses).toHaveLength(3);
      const byId = new Map(responses.map((r) => [r.infer_response.id, r]));
      expect(byId.get('a')?.error_message).toBe('');
      expect(byId.get('a')?.infer_response.outputs[0].shape).toEqual([1, 3]);
      expect(byId.get('b')?.error_message).toContain("unknown model: 'nope'");
      expect(byId.get('c')?.error_message).toBe('');
    });

    it('counts requests in ModelStatistics', async () => {
      const before = (await client.call('ModelStatistics', { name: 'sentiment', version: '1' }))
        .model_stats[0];
      await client.call('ModelInfer', bertRequest('sentiment', [tokenRow(6, 5), tokenRow(6, 6)]));
      const after = (await client.call('ModelStatistics', { name: 'sentiment', version: '1' }))
        .model_stats[0];
      expect(after.inference_stats.success.count).toBe(before.inference_stats.success.count + 1);
      expect(after.inference_count).toBe(before.inference_count + 2);
      expect(after.execution_count).toBe(before.execution_count + 1);
      expect(after.inference_stats.compute_infer.ns).toBeGreaterThan(
        before.inference_stats.compute_infer.ns,
      );
      const all = await client.call('ModelStatistics', {});
      expect((all.model_stats as Any[]).map((s) => String(s.name)).sort()).toEqual([
        'embed',
        'sentiment',
      ]);
    });

    it('lists every model in RepositoryIndex with the reason a model is unavailable', async () => {
      const { models } = await client.call('RepositoryIndex', {});
      const by = new Map<string, Any>((models as Any[]).map((m) => [String(m.name), m]));
      expect(by.get('sentiment')).toMatchObject({ version: '1', state: 'READY' });
      expect(by.get('torch')).toMatchObject({
        state: 'UNAVAILABLE',
        reason: 'served by Triton; the embedded host runs onnxruntime_onnx',
      });
      const c = by.get('report-c')!;
      expect(c.state).toBe('UNAVAILABLE');
      expect(c.reason).toContain("input 'input_ids'");
      expect(c.reason).toContain('[-1,-1,-1]');
      expect(c.reason).toContain("the model's [-1,-1]");
      expect(by.get('badsha')!.reason).toContain('model_sha256_v1');
      const ready = await client.call('RepositoryIndex', { ready: true });
      expect(ready.models.every((m: Any) => m.state === 'READY')).toBe(true);
    });

    it('refuses RepositoryModelLoad/Unload in control mode none', async () => {
      const err = await client.fail('RepositoryModelLoad', { model_name: 'sentiment' });
      expect(err.code).toBe(status.UNAVAILABLE);
      expect(err.details).toContain('--model-control-mode=explicit');
      expect((await client.fail('RepositoryModelUnload', { model_name: 'sentiment' })).code).toBe(
        status.UNAVAILABLE,
      );
    });

    it.each([
      'SystemSharedMemoryStatus',
      'SystemSharedMemoryRegister',
      'SystemSharedMemoryUnregister',
      'CudaSharedMemoryStatus',
      'CudaSharedMemoryRegister',
      'CudaSharedMemoryUnregister',
      'TraceSetting',
      'LogSettings',
    ])('answers %s with UNIMPLEMENTED and a clear message', async (method) => {
      const err = await client.fail(method, {});
      expect(err.code).toBe(status.UNIMPLEMENTED);
      expect(err.details).toContain('not supported by the embedded model host');
    });
  });

  describe('bad input never crashes the host and gets the right status', () => {
    const row = tokenRow(6, 9);
    const base = () => bertRequest('sentiment', [row]);
    const withInput = (i: number, patch: Any) => {
      const r = base();
      r.inputs[i] = { ...r.inputs[i], ...patch };
      return r;
    };
    it.each<[string, () => Any, status, string]>([
      [
        'unknown model',
        () => bertRequest('nope', [row]),
        status.NOT_FOUND,
        "unknown model: 'nope'",
      ],
      [
        'unknown version',
        () => ({ ...base(), model_version: '7' }),
        status.NOT_FOUND,
        "unknown version 7 of model 'sentiment'",
      ],
      [
        'missing input',
        () => {
          const r = base();
          r.inputs.pop();
          r.raw_input_contents.pop();
          return r;
        },
        status.INVALID_ARGUMENT,
        "missing input 'token_type_ids'",
      ],
      [
        'extra input',
        () => {
          const r = base();
          r.inputs.push({ name: 'position_ids', datatype: 'INT64', shape: [1, 6] });
          r.raw_input_contents.push(int64Bytes([0, 1, 2, 3, 4, 5]));
          return r;
        },
        status.INVALID_ARGUMENT,
        "unexpected input 'position_ids'",
      ],
      [
        'wrong datatype',
        () => withInput(0, { datatype: 'INT32' }),
        status.INVALID_ARGUMENT,
        "input 'input_ids': datatype INT32 does not match the model's INT64",
      ],
      [
        'shape not matching the config',
        () => withInput(1, { shape: [1, 6, 1] }),
        status.INVALID_ARGUMENT,
        "input 'attention_mask': shape [1,6,1] does not match the model's [-1,-1]",
      ],
      [
        'batch over max_batch_size',
        () =>
          bertRequest(
            'sentiment',
            Array.from({ length: 65 }, () => [1, 2]),
          ),
        status.INVALID_ARGUMENT,
        'batch size 65 is outside 1..64 (max_batch_size)',
      ],
      [
        'raw size not matching shape × dtype',
        () => withInput(0, { shape: [1, 7] }),
        status.INVALID_ARGUMENT,
        "input 'input_ids': data holds 48 bytes but shape [1,7] of INT64 needs 56",
      ],
      [
        'huge declared shape',
        () => withInput(0, { shape: [1, 2 ** 45] }),
        status.INVALID_ARGUMENT,
        "input 'input_ids'",
      ],
      [
        'unknown datatype',
        () => withInput(2, { datatype: 'INT65' }),
        status.INVALID_ARGUMENT,
        "input 'token_type_ids': unknown datatype 'INT65'",
      ],
    ])('%s', async (_what, request, code, message) => {
      const err = await client.fail('ModelInfer', request());
      expect(err.code).toBe(code);
      expect(err.details).toContain(message);
    });

    it('answers a message over the size limit with RESOURCE_EXHAUSTED and keeps serving', async () => {
      const n = MAX_MESSAGE / 8 + 1024;
      const r = bertRequest('sentiment', [row]);
      r.raw_input_contents[0] = Buffer.alloc(n * 8);
      const err = await client.fail('ModelInfer', r);
      expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
      expect((await client.call('ModelInfer', base())).outputs[0].shape).toEqual([1, 3]);
    });

    it('answers inference on an unavailable model with UNAVAILABLE naming the reason', async () => {
      const err = await client.fail('ModelInfer', bertRequest('torch', [row]));
      expect(err.code).toBe(status.UNAVAILABLE);
      expect(err.details).toContain('served by Triton');
    });
  });

  describe('dynamic batching', () => {
    it('gives the same results batched (padded to the longest) as one by one, within 1e-4', async () => {
      const rows = Array.from({ length: 24 }, (_, i) => tokenRow(4 + ((i * 7) % 29), 100 + i));
      const alone: number[][] = [];
      for (const r of rows) {
        alone.push(
          float32s(
            (await client.call('ModelInfer', bertRequest('sentiment', [r]))).raw_output_contents[0],
          ),
        );
      }
      const before = (await client.call('ModelStatistics', { name: 'sentiment' })).model_stats[0];
      const together = await Promise.all(
        rows.map((r) => client.call('ModelInfer', bertRequest('sentiment', [r]))),
      );
      const after = (await client.call('ModelStatistics', { name: 'sentiment' })).model_stats[0];
      together.forEach((res, i) => {
        const got = float32s(res.raw_output_contents[0]);
        got.forEach((v, j) => expect(Math.abs(v - alone[i]![j]!)).toBeLessThan(1e-4));
      });
      // 24 concurrent requests ran in fewer executions: they were batched.
      expect(after.execution_count - before.execution_count).toBeLessThan(24);
      expect(after.batch_stats.some((b: Any) => b.batch_size > 1)).toBe(true);
    });

    it('trims a padded sequence axis of outputs back to each request length', async () => {
      const rows = [tokenRow(3, 1), tokenRow(9, 2), tokenRow(17, 3)];
      const alone: Any[] = [];
      for (const r of rows) alone.push(await client.call('ModelInfer', bertRequest('embed', [r])));
      const together = await Promise.all(
        rows.map((r) => client.call('ModelInfer', bertRequest('embed', [r]))),
      );
      together.forEach((res, i) => {
        expect(res.outputs[0].shape).toEqual([1, rows[i]!.length, 128]);
        const a = float32s(alone[i]!.raw_output_contents[0]);
        const b = float32s(res.raw_output_contents[0]);
        expect(b).toHaveLength(a.length);
        b.forEach((v, j) => expect(Math.abs(v - a[j]!)).toBeLessThan(1e-4));
      });
    });
  });

  describe('HTTP (KServe v2 REST)', () => {
    const json = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${http}${path}`, init);
      return { status: res.status, body: (await res.json()) as Any };
    };
    const post = (path: string, body: unknown) =>
      json(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const inferBody = (len: number) => {
      const ids = tokenRow(len, 42);
      const t = (name: string, data: number[]) => ({
        name,
        shape: [1, len],
        datatype: 'INT64',
        data,
      });
      return {
        id: 'http-1',
        inputs: [
          t('input_ids', ids),
          t(
            'attention_mask',
            ids.map(() => 1),
          ),
          t(
            'token_type_ids',
            ids.map(() => 0),
          ),
        ],
      };
    };

    it('serves health, server metadata and /healthz', async () => {
      expect(await json('/v2/health/live')).toEqual({ status: 200, body: { live: true } });
      expect(await json('/v2/health/ready')).toEqual({ status: 200, body: { ready: true } });
      expect((await json('/v2')).body.name).toBe('model-mesh-host');
      expect((await json('/healthz/live')).status).toBe(200);
      expect(await json('/healthz/ready')).toMatchObject({ status: 200, body: { status: 'ok' } });
    });

    it('serves model metadata, readiness, config and stats, with and without a version', async () => {
      expect((await json('/v2/models/sentiment')).body.inputs).toHaveLength(3);
      expect((await json('/v2/models/sentiment/versions/1')).body.versions).toEqual(['1']);
      expect((await json('/v2/models/sentiment/ready')).status).toBe(200);
      expect((await json('/v2/models/sentiment/versions/1/ready')).status).toBe(200);
      expect((await json('/v2/models/torch/ready')).status).toBe(400);
      expect((await json('/v2/models/sentiment/config')).body.max_batch_size).toBe(64);
      expect((await json('/v2/models/sentiment/versions/1/config')).body.name).toBe('sentiment');
      const stats = await json('/v2/models/sentiment/stats');
      expect(stats.body.model_stats[0].inference_stats.success.count).toBeGreaterThan(0);
      expect((await json('/v2/models/sentiment/versions/1/stats')).body.model_stats).toHaveLength(
        1,
      );
      expect((await json('/v2/models/nope')).status).toBe(404);
    });

    it('runs JSON inference with the same result as gRPC', async () => {
      const body = inferBody(10);
      const res = await post('/v2/models/sentiment/infer', body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model_name: 'sentiment', model_version: '1', id: 'http-1' });
      const viaGrpc = float32s(
        (await client.call('ModelInfer', bertRequest('sentiment', [body.inputs[0]!.data])))
          .raw_output_contents[0],
      );
      (res.body.outputs[0].data as number[]).forEach((v, i) =>
        expect(v).toBeCloseTo(viaGrpc[i]!, 5),
      );
      expect((await post('/v2/models/sentiment/versions/1/infer', body)).status).toBe(200);
    });

    it('maps bad JSON requests to 400/404 with {error}', async () => {
      const bad = inferBody(4);
      bad.inputs[0]!.datatype = 'FP32';
      const r = await post('/v2/models/sentiment/infer', bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("input 'input_ids'");
      expect((await post('/v2/models/nope/infer', inferBody(4))).status).toBe(404);
      expect((await post('/v2/models/sentiment/infer', { inputs: 'x' })).status).toBe(400);
    });

    it('serves the repository index and refuses load/unload in mode none', async () => {
      const index = await post('/v2/repository/index', {});
      expect(index.status).toBe(200);
      expect((index.body as Any[]).find((m) => m.name === 'torch')!.state).toBe('UNAVAILABLE');
      expect((await post('/v2/repository/models/sentiment/load', {})).status).toBe(503);
      expect((await post('/v2/repository/models/sentiment/unload', {})).status).toBe(503);
    });

    it('exposes Triton metrics on the metrics port only', async () => {
      const text = await (await fetch(`${host.urls.metrics}/metrics`)).text();
      for (const name of [
        'nv_inference_request_success',
        'nv_inference_request_failure',
        'nv_inference_count',
        'nv_inference_exec_count',
        'nv_inference_pending_request_count',
        'nv_inference_request_duration_us',
        'nv_inference_queue_duration_us',
        'nv_inference_compute_input_duration_us',
        'nv_inference_compute_infer_duration_us',
        'nv_inference_compute_output_duration_us',
      ]) {
        expect(samplesNamed(text, name, { model: 'sentiment', version: '1' })).not.toEqual([]);
      }
      expect(
        samplesNamed(text, 'nv_inference_request_failure', {
          model: 'sentiment',
          version: '1',
          reason: 'OTHER',
        }),
      ).not.toEqual([]);
      expect((await fetch(`${http}/metrics`)).status).toBe(404);
    });
  });
});
