import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../test/support/free-port';
import { pollUntil } from '../../../test/support/poll';
import { loadConfig } from './load-config';
import { redisEnv } from './env.schema';
import { redisEndpointOf, redisIssues, type RedisEndpoint } from './redis-endpoint';
import { checkRedisServer } from './redis.check';
import { closeRedis, createRedis, type RedisClient } from './redis-factory';

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

describe('Redis Cluster over TLS', () => {
  const nodes: ChildProcess[] = [];
  const ports: number[] = [];
  const cli = (...args: string[]) =>
    execFileSync('redis-cli', ['--tls', '--cacert', join(dir, 'ca.crt'), ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });

  beforeAll(async () => {
    const free = new Set<number>();
    while (free.size < 12) free.add(await freePort());
    const all = [...free];
    for (let i = 0; i < 6; i++) {
      const [p, bus] = [all[i] as number, all[6 + i] as number];
      ports.push(p);
      nodes.push(
        spawn(
          'redis-server',
          [
            ...['--port', '0', '--tls-port', String(p), '--bind', '127.0.0.1'],
            ...[
              '--tls-cert-file',
              join(dir, 'server.crt'),
              '--tls-key-file',
              join(dir, 'server.key'),
            ],
            ...['--tls-ca-cert-file', join(dir, 'ca.crt'), '--tls-auth-clients', 'no'],
            ...['--tls-cluster', 'yes', '--tls-replication', 'yes'],
            ...['--cluster-enabled', 'yes', '--cluster-port', String(bus)],
            ...[
              '--cluster-config-file',
              join(dir, `nodes-${p}.conf`),
              '--cluster-node-timeout',
              '2000',
            ],
            ...['--save', '', '--appendonly', 'no', '--dir', dir],
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    await pollUntil(
      () => (ports.every((p) => cli('-p', String(p), 'PING').trim() === 'PONG') ? true : undefined),
      { timeoutMs: 10_000, what: 'the TLS cluster nodes' },
    );
    cli(
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    );
    await pollUntil(
      () =>
        ports.every((p) => cli('-p', String(p), 'CLUSTER', 'INFO').includes('cluster_state:ok'))
          ? true
          : undefined,
      { timeoutMs: 20_000, what: 'cluster_state:ok' },
    );
  });

  afterAll(() => {
    for (const node of nodes) node.kill('SIGKILL');
  });

  it('takes commands on every primary and runs the settings check over TLS', async () => {
    const at = endpoint({
      REDIS_CLUSTER_NODES: ports.map((p) => `127.0.0.1:${p}`).join(','),
      REDIS_TLS: 'true',
      REDIS_TLS_CA: join(dir, 'ca.crt'),
    });
    const redis = open(at);
    for (let i = 0; i < 12; i++) await redis.set(`int:tls-cluster:{k${i}}`, String(i));
    expect(await redis.get('int:tls-cluster:{k7}')).toBe('7');
    const report = await checkRedisServer(redis);
    expect(report.problems).toEqual([]);
    expect(report.unpersisted).toHaveLength(3);
    await closeRedis(redis);
  });
});
