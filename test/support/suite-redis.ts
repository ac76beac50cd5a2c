import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from './redis-prefix';
import { RedisClusterHarness } from './redis-servers';

export interface SuiteRedis {
  /** The file's key prefix (from uniquePrefix); tests nest their own prefixes under it. */
  readonly prefix: string;
  /** The file's `commands` client on the shared Redis, opened on first use. */
  readonly redis: RedisClient;
  /** One more `commands` client (for a component that wants its own), closed with the others. */
  connect(): RedisClient;
  /** Drops every key under the prefix and closes every client; for the file's `afterAll`. */
  close(): Promise<void>;
}

/**
 * The Redis side of one integration spec file: its key prefix and its `commands` clients, named
 * `name` in CLIENT LIST. The file calls `close` in `afterAll`, after whatever still uses them.
 */
export function suiteRedis(file: string, name: string): SuiteRedis {
  const prefix = uniquePrefix(file);
  const clients: RedisClient[] = [];
  let main: RedisClient | undefined;
  const connect = (): RedisClient => {
    const client = createRedis('commands', { url: SHARED_REDIS_URL, name });
    clients.push(client);
    return client;
  };
  return {
    prefix,
    get redis() {
      return (main ??= connect());
    },
    connect,
    async close() {
      await dropPrefix(prefix);
      await Promise.all(clients.map((c) => closeRedis(c)));
    },
  };
}

export interface SuiteCluster {
  /** The file's key prefix; the keys live on the file's own cluster. */
  readonly prefix: string;
  /** The file's `commands` client on the cluster (after `start`). */
  readonly redis: RedisClient;
  /** One more client of `role` on the cluster, closed with the others. */
  open(role: 'commands' | 'subscriber', name?: string): RedisClient;
  /** Starts the cluster (3 primaries, a replica each) and opens `redis`; for `beforeAll`. */
  start(): Promise<void>;
  /** Closes every client and stops the cluster; for `afterAll`. */
  close(): Promise<void>;
}

/**
 * A Redis Cluster of one spec file's own, for checking that its scripts, MULTIs and pipelines
 * keep their keys in one slot; clients are named `name` and ignore the errors of a stopping node.
 */
export function suiteCluster(file: string, name: string): SuiteCluster {
  const prefix = uniquePrefix(file, undefined, { ownServer: true });
  const clients: RedisClient[] = [];
  let cluster: RedisClusterHarness | undefined;
  let main: RedisClient | undefined;
  const open = (role: 'commands' | 'subscriber', clientName = name): RedisClient => {
    if (!cluster) throw new Error('suiteCluster: start() first');
    const client = createRedis(role, { endpoint: cluster.endpoint, name: clientName });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  return {
    prefix,
    get redis() {
      if (!main) throw new Error('suiteCluster: start() first');
      return main;
    },
    open,
    async start() {
      cluster = await RedisClusterHarness.start();
      main = open('commands');
    },
    async close() {
      await Promise.all(clients.map((c) => closeRedis(c)));
      await cluster?.stop();
    },
  };
}
