import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from './redis-prefix';

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
