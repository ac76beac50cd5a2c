/**
 * Support code for the model host's end-to-end suites (test/model-host*.e2e-spec.ts): throwaway
 * model repositories built from the generated tiny models, and a raw grpc-js client loaded
 * straight from proto/ — no mesh code between the test and the wire.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { execSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricSum } from '../../libs/telemetry/src/testing/prometheus-text';
import { OnnxGraphBuilder } from '../../scripts/models/onnx-graph.builder';
import { OnnxDataType, encodeOnnxModel } from '../../scripts/models/onnx-proto';

export const ROOT = join(__dirname, '..', '..');
const DEMO = join(ROOT, 'model_repository');

/** Generates the tiny demo models once if a fresh checkout has none. */
export function ensureTinyModels(): void {
  if (!existsSync(join(DEMO, 'sentiment-en', '1', 'model.onnx'))) {
    execSync('npm run -s models', { cwd: ROOT, stdio: 'inherit' });
  }
}

export interface ModelSpec {
  /** Demo model whose version 1 file is linked in. */
  from: string;
  versions?: number[];
  /** config.pbtxt text (default: the demo model's, renamed); `{name}` is replaced. */
  config?: string;
  /** Transforms the demo config text. */
  edit?: (text: string) => string;
}

/** A temporary repository; each model links the demo model file into its version dirs. */
export function makeRepository(models: Record<string, ModelSpec>): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'model-host-e2e-'));
  for (const [name, spec] of Object.entries(models)) writeModel(dir, name, spec);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeModel(dir: string, name: string, spec: ModelSpec): void {
  const src = join(DEMO, spec.from);
  let text = spec.config ?? readFileSync(join(src, 'config.pbtxt'), 'utf8');
  text = text.replace(/^name: ".*"$/m, `name: "${name}"`).replace(/\{name\}/g, name);
  // Drop the demo's hash pins (they name the demo's versions); tests add their own.
  text = text.replace(/parameters \{\s*key: "model_sha256[^"]*"\s*value: \{[^}]*\}\s*\}\s*/g, '');
  if (spec.edit) text = spec.edit(text);
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'config.pbtxt'), text);
  if (existsSync(join(src, 'labels.txt')) && !existsSync(join(dir, name, 'labels.txt'))) {
    writeFileSync(join(dir, name, 'labels.txt'), readFileSync(join(src, 'labels.txt')));
  }
  for (const v of spec.versions ?? [1]) {
    mkdirSync(join(dir, name, String(v)), { recursive: true });
    const target = join(dir, name, String(v), 'model.onnx');
    if (!existsSync(target)) symlinkSync(join(src, '1', 'model.onnx'), target);
  }
}

const LOADER: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A raw client of inference.GRPCInferenceService and grpc.health.v1.Health. */
export class RawKServeClient {
  readonly inference: grpc.Client & Any;
  readonly health: grpc.Client & Any;

  constructor(url: string, maxMessageBytes = 256 * 1024 * 1024) {
    const def = protoLoader.loadSync(
      ['inference/grpc_service.proto', 'grpc/health/v1/health.proto'],
      {
        ...LOADER,
        includeDirs: [join(ROOT, 'proto'), join(ROOT, 'proto', 'inference')],
      },
    );
    const pkg = grpc.loadPackageDefinition(def);
    const ctor = (path: string) =>
      path
        .split('.')
        .reduce<unknown>(
          (o, k) => (o as Record<string, unknown>)[k],
          pkg,
        ) as grpc.ServiceClientConstructor;
    const address = url.replace(/^grpc:\/\//, '');
    const options = {
      'grpc.max_send_message_length': maxMessageBytes,
      'grpc.max_receive_message_length': maxMessageBytes,
    };
    const Inference = ctor('inference.GRPCInferenceService');
    const Health = ctor('grpc.health.v1.Health');
    this.inference = new Inference(address, grpc.credentials.createInsecure(), options);
    this.health = new Health(address, grpc.credentials.createInsecure(), options);
  }

  call<T = Any>(
    method: string,
    request: Any,
    client: 'inference' | 'health' = 'inference',
  ): Promise<T> {
    const c = client === 'inference' ? this.inference : this.health;
    return new Promise((resolve, reject) => {
      (c[method] as (r: Any, cb: (e: grpc.ServiceError | null, v: T) => void) => void).call(
        c,
        request,
        (err, res) => (err ? reject(err) : resolve(res)),
      );
    });
  }

  /** Resolves with the gRPC error of a call expected to fail. */
  async fail(method: string, request: Any): Promise<grpc.ServiceError> {
    try {
      await this.call(method, request);
    } catch (err: unknown) {
      return err as grpc.ServiceError;
    }
    throw new Error(`${method} was expected to fail`);
  }

  close(): void {
    this.inference.close();
    this.health.close();
  }
}

/** Little-endian INT64 bytes. */
export function int64Bytes(values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => b.writeBigInt64LE(BigInt(v), i * 8));
  return b;
}

export function float32s(buf: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i < buf.length; i += 4) out.push(buf.readFloatLE(i));
  return out;
}

/** Seeded token ids: a [CLS] ... [SEP]-shaped row of `len` ids. */
export function tokenRow(len: number, seed: number): number[] {
  let x = seed * 7919 + 17;
  return Array.from({ length: len }, (_, i) => {
    if (i === 0) return 2;
    if (i === len - 1) return 3;
    x = (x * 1103515245 + 12345) % 2147483648;
    return 100 + (x % 20000);
  });
}

/** A ModelInferRequest for BERT inputs with `rows` rows of length `len`, raw contents. */
export function bertRequest(model: string, rows: number[][], extra: Any = {}): Any {
  const len = rows[0]?.length ?? 0;
  const shape = [rows.length, len];
  const ids = rows.flat();
  return {
    model_name: model,
    inputs: [
      { name: 'input_ids', datatype: 'INT64', shape },
      { name: 'attention_mask', datatype: 'INT64', shape },
      { name: 'token_type_ids', datatype: 'INT64', shape },
    ],
    raw_input_contents: [
      int64Bytes(ids),
      int64Bytes(ids.map(() => 1)),
      int64Bytes(ids.map(() => 0)),
    ],
    ...extra,
  };
}

/**
 * The host's `nv_inference_pending_request_count` for one model, summed over its versions (0 when
 * absent): tests poll it to know a request is really in flight instead of sleeping and hoping.
 */
export async function pendingRequests(metricsUrl: string, model: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return metricSum(text, 'nv_inference_pending_request_count', { model });
}

/**
 * A one-input model for Triton's raw binary requests and exact classification strings:
 * `y = Relu(x)`, FP32 `[-1]` in and out, batching up to 8, with four labels.
 */
export function writeReluModel(dir: string, name: string): void {
  const g = new OnnxGraphBuilder();
  const x = g.input('x', OnnxDataType.FLOAT, ['batch', 'n']);
  g.exposeAs(g.op('Relu', [x], 'relu'), 'y', OnnxDataType.FLOAT, ['batch', 'n']);
  const model = encodeOnnxModel({
    producerName: 'model-host-e2e',
    producerVersion: '1',
    docString: '',
    graph: g.build(name),
    metadata: [],
  });
  mkdirSync(join(dir, name, '1'), { recursive: true });
  writeFileSync(join(dir, name, '1', 'model.onnx'), model);
  writeFileSync(join(dir, name, 'labels.txt'), 'alpha\nbeta\ngamma\ndelta\n');
  writeFileSync(
    join(dir, name, 'config.pbtxt'),
    `name: "${name}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] label_filename: "labels.txt" } ]
`,
  );
}
