/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON and grpc-js dynamic clients are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { request } from 'node:http';
import { join } from 'node:path';
import { ROOT, startApp, type StartedApp } from './app-process';
import { pollUntil } from './poll';

/** Demo keys from deploy/config/mesh.yaml (local use only). */
export const ACME_KEY = 'acme-demo-key';
export const GLOBEX_KEY = 'globex-demo-key';
export const ADMIN_KEY = 'e2e-admin-key';

/** Every demo model version (ARCHITECTURE.md, Pinned decisions). */
export const DEMO_VERSIONS: readonly {
  model: string;
  version: number;
  kind: 'classification' | 'embedding';
}[] = [
  { model: 'question-type-zh', version: 1, kind: 'classification' },
  { model: 'question-type-zh', version: 2, kind: 'classification' },
  { model: 'intent-zh', version: 1, kind: 'classification' },
  { model: 'intent-zh', version: 2, kind: 'classification' },
  { model: 'intent-zh', version: 3, kind: 'classification' },
  { model: 'sentiment-en', version: 1, kind: 'classification' },
  { model: 'text-embed-zh', version: 1, kind: 'embedding' },
];

export interface Mesh {
  host: StartedApp;
  router: StartedApp;
  http: string;
  grpcAddress: string;
  prefix: string;
  stop(): Promise<void>;
}

/** `grpc://h:p`, `http://h:p` or `h:p` → `h:p`. */
export function hostPort(url: string): string {
  return url.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '');
}

/** Starts a model host and a router on it (both on free ports) and waits until the router is ready. */
export async function startMesh(
  prefix: string,
  { repository = 'model_repository', routerEnv = {}, hostEnv = {} } = {},
): Promise<Mesh> {
  const host = await startApp(
    'model-host',
    {
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      MODEL_REPOSITORY: repository,
      ...hostEnv,
    },
    { listeners: ['http', 'grpc', 'metrics'], timeoutMs: 60_000 },
  );
  let router: StartedApp;
  try {
    router = await startApp(
      'router',
      {
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        REDIS_KEY_PREFIX: prefix,
        MODEL_REPOSITORY: repository,
        KSERVE_ENDPOINTS: hostPort(host.urls.grpc!),
        MESH_CONFIG: join(ROOT, 'deploy', 'config', 'mesh.yaml'),
        ADMIN_API_KEY: ADMIN_KEY,
        KSERVE_HEALTH_INTERVAL_MS: '200',
        // Small enough that the 413 test's body fits socket buffers (no EPIPE before the answer).
        ROUTER_BODY_LIMIT_BYTES: String(256 * 1024),
        ...routerEnv,
      },
      { listeners: ['http', 'grpc'] },
    );
  } catch (err) {
    await host.stop('SIGKILL');
    throw err;
  }
  const http = router.urls.http!;
  await pollUntil(
    async () => ((await fetch(`${http}/healthz/ready`)).status === 200 ? true : undefined),
    { timeoutMs: 30_000, what: 'router readiness' },
  );
  return {
    host,
    router,
    http,
    grpcAddress: hostPort(router.urls.grpc!),
    prefix,
    stop: async () => {
      await router.stop('SIGKILL');
      await host.stop('SIGKILL');
    },
  };
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  {
    key,
    body,
    headers = {},
    raw,
  }: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<JsonResponse<T>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    ...(raw !== undefined
      ? { body: raw }
      : body !== undefined
        ? { body: JSON.stringify(body) }
        : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (metrics, docs)
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** mesh.v1's package definition, loaded from proto/ as any user would. */
function predictorProto(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(join(ROOT, 'proto', 'mesh', 'v1', 'predictor.proto'), {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
}

/** mesh.v1.Predictor's methods, with their serializers (for clients that send raw bytes). */
export function predictorService(): grpc.ServiceDefinition {
  return predictorProto()['mesh.v1.Predictor'] as grpc.ServiceDefinition;
}

/** A raw grpc-js client of mesh.v1.Predictor built from proto/, as any user would. */
export function predictorClient(
  address: string,
  credentials = grpc.credentials.createInsecure(),
): any {
  const pkg = grpc.loadPackageDefinition(predictorProto()) as any;
  return new pkg.mesh.v1.Predictor(address, credentials);
}

export interface GrpcOutcome<T = any> {
  error?: grpc.ServiceError;
  response?: T;
  metadata?: grpc.Metadata;
}

export function grpcCall<T = any>(
  client: any,
  method: string,
  request: object,
  md: Record<string, string> = {},
): Promise<GrpcOutcome<T>> {
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(md)) metadata.set(k, v);
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const c = client[method](
      request,
      metadata,
      { deadline: Date.now() + 15_000 },
      (error: grpc.ServiceError | null, response: T) =>
        resolve(error ? { error, metadata: headers } : { response, metadata: headers }),
    );
    c.on('metadata', (m: grpc.Metadata) => (headers = m));
  });
}

/** The suites read /metrics with the one Prometheus text parser the benches use too. */
export { metricSum } from '../../libs/telemetry/src/testing/prometheus-text';

/**
 * POSTs a body the way curl does a large one: `Expect: 100-continue`, and the body only once the
 * server says go ahead. `uploaded` tells whether it did; a server that refuses on the declared
 * length answers without asking for the body.
 */
export function postExpectContinue(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any; uploaded: boolean }> {
  return new Promise((resolve, reject) => {
    let uploaded = false;
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), uploaded });
          req.destroy();
        });
      },
    );
    req.on('continue', () => {
      uploaded = true;
      req.end(body);
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
