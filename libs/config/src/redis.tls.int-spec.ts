import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../test/support/free-port';
import { pollUntil } from '../../../test/support/poll';
import { loadConfig } from './load-config';
import { redisEnv } from './env.schema';
import { redisEndpointOf, redisIssues, type RedisEndpoint } from './redis.endpoint';
import { closeRedis, createRedis, type RedisClient } from './redis.factory';

/** A TLS-only redis-server whose certificate a CA of this spec's own signed (for 127.0.0.1). */
let dir: string;
let server: ChildProcess;
let port: number;
const opened: RedisClient[] = [];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mesh-redis-tls-'));
  openssl(
    'req',
    ...['-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=mesh-test-ca'],
    ...['-keyout', 'ca.key', '-out', 'ca.crt'],
  );
  openssl(
    'req',
    ...['-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1'],
    ...['-keyout', 'server.key', '-out', 'server.csr'],
  );
  execFileSync(
    'sh',
    [
      '-c',
      'printf "subjectAltName=IP:127.0.0.1\\n" > san.ext && openssl x509 -req -in server.csr ' +
        '-CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile san.ext -out server.crt',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  port = await freePort();
  server = spawn(
    'redis-server',
    [
      ...['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1'],
      ...['--tls-cert-file', join(dir, 'server.crt'), '--tls-key-file', join(dir, 'server.key')],
      ...['--tls-ca-cert-file', join(dir, 'ca.crt'), '--tls-auth-clients', 'no'],
      ...['--save', '', '--appendonly', 'no', '--dir', dir],
    ],
    { stdio: 'ignore' },
  );
  await pollUntil(
    async () => {
      const probe = open(
        endpoint({ REDIS_URL: url(), REDIS_TLS_CA: join(dir, 'ca.crt') }),
        'probe',
      );
      await probe.connect();
      return (await probe.ping()) === 'PONG' ? true : undefined;
    },
    { timeoutMs: 10_000, what: 'the TLS redis-server' },
  );
});

afterAll(async () => {
  await Promise.all(opened.map((c) => closeRedis(c)));
  server?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const url = (scheme = 'rediss') => `${scheme}://127.0.0.1:${port}`;

function endpoint(env: NodeJS.ProcessEnv): RedisEndpoint {
  return redisEndpointOf(loadConfig('test', redisEnv, env, redisIssues));
}

function open(at: RedisEndpoint, role: 'commands' | 'probe' = 'commands'): RedisClient {
  const client = createRedis(role, { endpoint: at, name: `tls-${role}` });
  client.on('error', () => undefined);
  opened.push(client);
  return client;
}

describe('Redis over TLS', () => {
  it('connects with a rediss:// URL and the CA of REDIS_TLS_CA', async () => {
    const redis = open(endpoint({ REDIS_URL: url(), REDIS_TLS_CA: join(dir, 'ca.crt') }));
    expect(await redis.ping()).toBe('PONG');
  });

  it('connects with REDIS_TLS=true and a redis:// URL', async () => {
    const at = endpoint({
      REDIS_URL: url('redis'),
      REDIS_TLS: 'true',
      REDIS_TLS_CA: join(dir, 'ca.crt'),
    });
    expect(await open(at).ping()).toBe('PONG');
  });

  it('refuses a server whose certificate no trusted CA signed', async () => {
    const probe = open(endpoint({ REDIS_URL: url() }), 'probe');
    await expect(probe.connect()).rejects.toThrow();
  });

  it('refuses a CA without TLS at boot, naming the variables', () => {
    expect(() => endpoint({ REDIS_URL: url('redis'), REDIS_TLS_CA: join(dir, 'ca.crt') })).toThrow(
      'REDIS_TLS_CA: is set, so REDIS_TLS must be true (or REDIS_URL a rediss:// URL)',
    );
  });
});
