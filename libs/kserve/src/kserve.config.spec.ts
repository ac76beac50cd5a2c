import { ConfigError, loadConfig } from '@mesh/config';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChannelCredentials } from './kserve-client';
import { kserveClientEnv, kservePoolOptionsFromEnv } from './kserve.config';

describe('kserve client configuration', () => {
  it('defaults to one local backend, 64 MiB messages and plaintext', () => {
    const opts = kservePoolOptionsFromEnv(loadConfig('test', kserveClientEnv, {}));
    expect(opts).toMatchObject({
      endpoints: ['127.0.0.1:8001'],
      maxMessageBytes: 64 * 1024 * 1024,
      deadlineMs: 10_000,
      retry: { maxAttempts: 3, baseDelayMs: 25, maxDelayMs: 1000 },
      breaker: { consecutiveFailures: 5, halfOpenAfterMs: 5000 },
    });
    expect(opts.tls).toBeUndefined();
  });

  it('reads endpoints, limits and TLS files', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'kserve-ca-')), 'ca.pem');
    writeFileSync(ca, '');
    const env = loadConfig('test', kserveClientEnv, {
      KSERVE_ENDPOINTS: 'a:8001,b:8001',
      KSERVE_MAX_MESSAGE_BYTES: '1048576',
      KSERVE_TLS_CA: ca,
    });
    const opts = kservePoolOptionsFromEnv(env);
    expect(opts.endpoints).toEqual(['a:8001', 'b:8001']);
    expect(opts.maxMessageBytes).toBe(1048576);
    expect(opts.tls).toEqual({ caFile: ca, certFile: undefined, keyFile: undefined });
  });

  it('lists every bad variable', () => {
    expect(() =>
      loadConfig('test', kserveClientEnv, { KSERVE_ENDPOINTS: 'nope', KSERVE_RETRY_ATTEMPTS: '0' }),
    ).toThrow(ConfigError);
    try {
      loadConfig('test', kserveClientEnv, { KSERVE_ENDPOINTS: 'nope', KSERVE_RETRY_ATTEMPTS: '0' });
    } catch (e: unknown) {
      expect((e as ConfigError).issues.map((i) => i.variable).sort()).toEqual([
        'KSERVE_ENDPOINTS',
        'KSERVE_RETRY_ATTEMPTS',
      ]);
    }
  });

  it('builds TLS credentials from PEM files and rejects a cert without its key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kserve-tls-'));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n');
    expect(createChannelCredentials({ caFile: ca })._isSecure()).toBe(true);
    expect(createChannelCredentials(undefined)._isSecure()).toBe(false);
    expect(() => createChannelCredentials({ caFile: ca, certFile: ca })).toThrow(/together/);
    expect(() => createChannelCredentials({ caFile: join(dir, 'missing.pem') })).toThrow(/ENOENT/);
  });
});
