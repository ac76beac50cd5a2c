import { ConfigError, loadConfig } from '@mesh/config';
import { KServeBackendPool } from './kserve-backend-pool';
import { kserveClientEnv, kserveClientIssues, kservePoolOptionsFromEnv } from './kserve.config';
import { createServerCredentials } from './server-tls';
import { FakeInferenceServer } from './testing/fake-inference-server';
import { makeTlsFiles, type TlsFiles } from './testing/tls-files';

let tls: TlsFiles;
const servers: FakeInferenceServer[] = [];
const pools: KServeBackendPool[] = [];

beforeAll(() => {
  tls = makeTlsFiles();
});

afterAll(() => tls?.remove());

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  for (const s of servers.splice(0)) s.stop();
});

async function server(clientCa?: string): Promise<FakeInferenceServer> {
  const s = new FakeInferenceServer([{ name: 'm', version: '1' }]);
  servers.push(s);
  await s.start(
    createServerCredentials({
      certFile: tls.serverCert,
      keyFile: tls.serverKey,
      clientCaFile: clientCa,
    }),
  );
  return s;
}

/** A pool configured only through the KSERVE_* environment, as the apps build theirs. */
async function poolFromEnv(env: Record<string, string>): Promise<KServeBackendPool> {
  const config = loadConfig('test', kserveClientEnv, { KSERVE_PROBE_DEADLINE_MS: '2000', ...env });
  const p = new KServeBackendPool(kservePoolOptionsFromEnv(config));
  pools.push(p);
  await p.start();
  return p;
}

const readyModels = (p: KServeBackendPool) => p.readyModels().map((m) => `${m.model}@${m.version}`);

describe('KServe channels over TLS, configured by KSERVE_TLS_*', () => {
  it('reaches a TLS backend with KSERVE_TLS_CA and not in plaintext', async () => {
    const s = await server();
    const secure = await poolFromEnv({ KSERVE_ENDPOINTS: s.address, KSERVE_TLS_CA: tls.ca });
    expect(readyModels(secure)).toEqual(['m@1']);
    const plain = await poolFromEnv({ KSERVE_ENDPOINTS: s.address });
    expect(readyModels(plain)).toEqual([]);
    expect(plain.status()[0]).toMatchObject({ ready: false });
  });

  it('presents the client certificate a mutual-TLS backend requires', async () => {
    const s = await server(tls.ca);
    const withCert = await poolFromEnv({
      KSERVE_ENDPOINTS: s.address,
      KSERVE_TLS_CA: tls.ca,
      KSERVE_TLS_CERT: tls.clientCert,
      KSERVE_TLS_KEY: tls.clientKey,
    });
    expect(readyModels(withCert)).toEqual(['m@1']);
    const withoutCert = await poolFromEnv({ KSERVE_ENDPOINTS: s.address, KSERVE_TLS_CA: tls.ca });
    expect(readyModels(withoutCert)).toEqual([]);
  });

  it('refuses a missing PEM file and a certificate without its key, naming the variables', () => {
    let caught: unknown;
    try {
      loadConfig(
        'test',
        kserveClientEnv,
        { KSERVE_TLS_CA: `${tls.dir}/missing.pem`, KSERVE_TLS_CERT: tls.clientCert },
        kserveClientIssues,
      );
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues).toEqual([
      { variable: 'KSERVE_TLS_CA', reason: expect.stringContaining('no such file') },
    ]);
    expect(() =>
      loadConfig('test', kserveClientEnv, { KSERVE_TLS_CERT: tls.clientCert }, kserveClientIssues),
    ).toThrow('KSERVE_TLS_CERT: is set, so KSERVE_TLS_KEY must be set too');
  });
});
