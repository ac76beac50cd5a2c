import * as grpc from '@grpc/grpc-js';
import { createRedis, closeRedis } from '@mesh/config';
import { readFileSync } from 'node:fs';
import { RawKServeClient } from './support/model-host-fixtures';
import { makeTlsFiles, type TlsFiles } from '../libs/kserve/src/testing/tls-files';
import { runToExit, uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ACME_KEY,
  call,
  grpcCall,
  predictorClient,
  startMesh,
  type Mesh,
} from './support/router-mesh';

jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);
let tls: TlsFiles;
let mesh: Mesh;

beforeAll(async () => {
  tls = makeTlsFiles();
  // The host only takes clients with a certificate from the test CA (mutual TLS); the router
  // presents one on its KServe channel and serves its own gRPC port over TLS.
  mesh = await startMesh(prefix, {
    hostEnv: {
      // The host's per-request access line is at debug (the router's is the one at info).
      LOG_LEVEL: 'debug',
      MODEL_HOST_GRPC_TLS_CERT: tls.serverCert,
      MODEL_HOST_GRPC_TLS_KEY: tls.serverKey,
      MODEL_HOST_GRPC_TLS_CLIENT_CA: tls.ca,
    },
    routerEnv: {
      // Nest's route-mapping lines, read below, are at debug.
      LOG_LEVEL: 'debug',
      KSERVE_TLS_CA: tls.ca,
      KSERVE_TLS_CERT: tls.clientCert,
      KSERVE_TLS_KEY: tls.clientKey,
      ROUTER_GRPC_TLS_CERT: tls.serverCert,
      ROUTER_GRPC_TLS_KEY: tls.serverKey,
    },
  });
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  tls?.remove();
  const redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'mesh-tls-e2e' });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

const auth = { authorization: `Bearer ${ACME_KEY}` };
const jsonLines = (logs: string[]) =>
  logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('router → model host over mutual TLS (KSERVE_TLS_*)', () => {
  it('routes predictions to a backend it can only reach over TLS', async () => {
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'sentiment', text: 'what a great phone' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ model: 'sentiment-en', version: 1 });
  });

  it('the TLS host turns plaintext KServe clients away', async () => {
    const plain = new RawKServeClient(mesh.host.urls.grpc!);
    try {
      const err = await plain.fail('ServerLive', {});
      expect(err.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      plain.close();
    }
  });
});

describe("the router's gRPC port over TLS (ROUTER_GRPC_TLS_*)", () => {
  it('answers a client that trusts the CA, and not a plaintext client', async () => {
    const secure = predictorClient(
      mesh.grpcAddress,
      grpc.credentials.createSsl(readFileSync(tls.ca)),
    );
    const plain = predictorClient(mesh.grpcAddress);
    try {
      const ok = await grpcCall(secure, 'Predict', { task: 'sentiment', text: 'nice' }, auth);
      expect(ok.error).toBeUndefined();
      expect(ok.response).toMatchObject({ model: 'sentiment-en', version: 1 });
      const refused = await grpcCall(plain, 'Predict', { task: 'sentiment', text: 'nice' }, auth);
      expect(refused.error?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      secure.close();
      plain.close();
    }
  });

  it('refuses to start with a missing PEM file or a key without its certificate', async () => {
    const missing = await runToExit('router', {
      REDIS_KEY_PREFIX: prefix,
      ROUTER_GRPC_TLS_CERT: `${tls.dir}/no-such.pem`,
      ROUTER_GRPC_TLS_KEY: tls.serverKey,
    });
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('ROUTER_GRPC_TLS_CERT: no such file');
    const unpaired = await runToExit('router', {
      REDIS_KEY_PREFIX: prefix,
      ROUTER_GRPC_TLS_KEY: tls.serverKey,
      ROUTER_GRPC_TLS_CLIENT_CA: tls.ca,
    });
    expect(unpaired.code).toBe(1);
    expect(unpaired.output).toContain(
      'ROUTER_GRPC_TLS_KEY: is set, so ROUTER_GRPC_TLS_CERT must be set too',
    );
    expect(unpaired.output).toContain(
      'ROUTER_GRPC_TLS_CLIENT_CA: is set, so ROUTER_GRPC_TLS_CERT must be set too',
    );
  });
});

describe('one request id from the router to the host', () => {
  it("finds the router's request id in the host's access log with model, version and status", async () => {
    const id = `trace-${process.pid}-${Date.now().toString(36)}`;
    const r = await call(mesh.http, 'POST', '/v1/predict', {
      key: ACME_KEY,
      body: { task: 'sentiment', text: 'follow me' },
      headers: { 'x-request-id': id },
    });
    expect(r.status).toBe(200);
    const onHost = await pollUntil(
      () => jsonLines(mesh.host.logs).find((e) => e.event === 'access' && e.requestId === id),
      { timeoutMs: 15_000, what: `request ${id} in the host log` },
    );
    expect(onHost).toMatchObject({
      transport: 'grpc',
      // A lone request rides the router's open stream to the host (KSERVE_LONE_STREAM); its id
      // travels in the request, not in call metadata.
      method: 'ModelStreamInfer',
      model: 'sentiment-en',
      version: '1',
      status: 0,
      failed: false,
    });
    const onRouter = await pollUntil(
      () => jsonLines(mesh.router.logs).find((e) => e.event === 'access' && e.requestId === id),
      { timeoutMs: 15_000, what: `request ${id} in the router log` },
    );
    expect(onRouter).toMatchObject({ model: 'sentiment-en', version: 1, status: 200 });
  });
});

describe('router start-up lines', () => {
  it('prints the batch route as clients call it (at debug)', () => {
    const routes = jsonLines(mesh.router.logs)
      .filter((e) => e.context === 'RouterExplorer')
      .map((e) => e.msg);
    expect(routes).toContain('Mapped {/v1/predict:batch, POST} route');
    expect(jsonLines(mesh.router.logs).find((e) => e.context === 'RouterExplorer')?.level).toBe(
      'debug',
    );
    expect(routes.filter((m) => String(m).includes('::'))).toEqual([]);
  });

  it('announces its Redis key prefix', () => {
    expect(jsonLines(mesh.router.logs)).toContainEqual(
      expect.objectContaining({ event: 'redis', keyPrefix: prefix }),
    );
  });
});
