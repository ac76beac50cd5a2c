import { closeRedis, createRedis, roleOptions, type RedisClient } from './redis-factory';
import { uniquePrefix } from '../../../test/support/redis-prefix';
import { pollUntil } from '../../../test/support/poll';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// Nothing listens there: the connection keeps reconnecting, as while Redis is down.
const DOWN_URL = 'redis://127.0.0.1:1';
const PREFIX = `${uniquePrefix(__filename)}:`;

const opened: RedisClient[] = [];
function open(...args: Parameters<typeof createRedis>): RedisClient {
  const client = createRedis(...args);
  client.on('error', () => undefined);
  opened.push(client);
  return client;
}

afterAll(async () => {
  const cleanup = open('commands', { url: REDIS_URL, name: 'factory-cleanup' });
  const keys = await cleanup.keys(`${PREFIX}*`);
  if (keys.length > 0) await cleanup.del(...keys);
  await Promise.all(opened.map((c) => closeRedis(c)));
});

describe('roleOptions', () => {
  it('keeps commands queued through a restart on every role', () => {
    for (const role of ['commands', 'subscriber', 'bullmq', 'blocking'] as const) {
      expect(roleOptions(role).maxRetriesPerRequest).toBeNull();
    }
  });

  it('bounds commands only on the commands role', () => {
    expect(roleOptions('commands', 250).commandTimeout).toBe(250);
    expect(roleOptions('commands').commandTimeout).toBeUndefined();
    for (const role of ['subscriber', 'bullmq', 'blocking'] as const) {
      expect(() => roleOptions(role, 250)).toThrow(`a ${role} connection takes no command timeout`);
    }
  });
});

describe('createRedis', () => {
  it('names the connection after its use', async () => {
    const client = open('commands', { url: REDIS_URL, name: 'factory-named' });
    expect(await client.client('GETNAME')).toBe('factory-named');
  });

  it('fails a command after the timeout while Redis is unreachable', async () => {
    const client = open('commands', { url: DOWN_URL, name: 'factory-down', commandTimeoutMs: 200 });
    // Without the timeout the command would stay queued while the connection retries: Jest's
    // own deadline would fail the test, so rejecting at all is the behaviour under test.
    await expect(client.get(`${PREFIX}k`)).rejects.toThrow('Command timed out');
  });

  it('fails a cluster command after the timeout while no node is reachable', async () => {
    const client = open('commands', {
      endpoint: { mode: 'cluster', nodes: [{ host: '127.0.0.1', port: 1 }], tls: false },
      name: 'factory-cluster-down',
      commandTimeoutMs: 200,
    });
    await expect(client.get(`${PREFIX}k`)).rejects.toThrow('Command timed out');
  });

  it('answers a probe at once: PONG from a Redis that is up, an error from one that is down', async () => {
    expect(roleOptions('probe')).toMatchObject({
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const up = open('probe', { url: REDIS_URL, name: 'factory-probe-up' });
    expect(up.status).toBe('wait');
    await up.connect();
    expect(await up.ping()).toBe('PONG');
    const down = open('probe', { url: DOWN_URL, name: 'factory-probe-down' });
    await expect(down.connect()).rejects.toThrow();
    await expect(down.ping()).rejects.toThrow();
  });

  it('opens a lazy connection on its first command only', async () => {
    const client = open('commands', { url: REDIS_URL, name: 'factory-lazy', lazyConnect: true });
    expect(client.status).toBe('wait');
    await client.ping();
    expect(client.status).toBe('ready');
  });
});

describe('closeRedis', () => {
  it('quits a ready connection after its pending replies', async () => {
    const client = open('commands', { url: REDIS_URL, name: 'factory-quit' });
    await client.ping();
    const write = client.set(`${PREFIX}written`, '1');
    await closeRedis(client);
    await expect(write).resolves.toBe('OK');
    expect(client.status).toBe('end');
    const reader = open('commands', { url: REDIS_URL, name: 'factory-reader' });
    expect(await reader.get(`${PREFIX}written`)).toBe('1');
  });

  it('disconnects at once a connection that never reached Redis, without throwing', async () => {
    const client = open('subscriber', { url: DOWN_URL, name: 'factory-never' });
    // Not waiting for a Redis that never answers: resolving at all is the behaviour.
    await expect(closeRedis(client)).resolves.toBeUndefined();
    expect(client.status).toBe('end');
  });

  it('disconnects a connection whose QUIT gets no answer in time', async () => {
    const client = open('blocking', { url: REDIS_URL, name: 'factory-blocked' });
    await client.ping();
    // QUIT waits behind the blocked BLPOP, so only the deadline ends the close.
    const blocked = client.blpop(`${PREFIX}never`, 0).catch((err: unknown) => err);
    // QUIT alone would wait for ever; the close returning is what the deadline buys.
    await closeRedis(client, 200);
    expect(await blocked).toBeInstanceOf(Error);
    await pollUntilEnded(client);
  });

  it('is safe on a closed or never-connected connection', async () => {
    const lazy = open('bullmq', { url: REDIS_URL, name: 'factory-idle', lazyConnect: true });
    await closeRedis(lazy);
    await closeRedis(lazy);
    expect(lazy.status).toBe('end');
  });
});

async function pollUntilEnded(client: RedisClient): Promise<void> {
  await pollUntil(() => (client.status === 'end' ? true : undefined), {
    timeoutMs: 2000,
    intervalMs: 20,
    what: `the client to end (still ${client.status})`,
  });
}
