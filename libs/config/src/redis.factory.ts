import Redis, { type RedisOptions } from 'ioredis';

/**
 * A Redis connection of the mesh. Standalone ioredis today; Cluster and Sentinel (ARCHITECTURE,
 * "Redis modes") widen this alias and `createRedis`, so callers already name the one type.
 */
export type RedisClient = Redis;

/**
 * What a connection is for; its options follow from that (`roleOptions`).
 * - `commands`: the shared connection that serves callers (reads, writes, scripts); may bound
 *   each command with `commandTimeoutMs`. A BullMQ Queue or FlowProducer that only adds jobs
 *   for a caller may use it too, so the caller's wait stays bounded.
 * - `subscriber`: pub/sub only; a connection in subscriber mode runs no other command.
 * - `bullmq`: handed to a BullMQ Worker, Queue or FlowProducer that owns its work (a Worker
 *   copies it for its own blocking connection).
 * - `blocking`: our own blocking reads (BLPOP, XREAD BLOCK), one per reader.
 * - `probe`: a one-shot check (is Redis up?): connects on `connect()`, never retries or queues,
 *   so a Redis that is down answers with an error at once instead of a wait.
 */
export type RedisRole = 'commands' | 'subscriber' | 'bullmq' | 'blocking' | 'probe';

export interface CreateRedisOptions {
  url: string;
  /** CLIENT SETNAME: which use a connection serves, in CLIENT LIST. One name per use. */
  name: string;
  /** `commands` only: longest wait for one command, queued time included. */
  commandTimeoutMs?: number;
  /** Connect on the first command instead of at once (a connection only some runs need). */
  lazyConnect?: boolean;
}

/**
 * The options each role gets, in one place. Every role keeps commands queued while Redis
 * restarts (`maxRetriesPerRequest: null`; readiness checks report the outage): BullMQ requires
 * it for workers, and a subscriber re-subscribes after the reconnect. Only `commands` may set
 * a command timeout: a request that needs Redis then fails fast ("Command timed out") instead of
 * waiting as long as the outage lasts; on a blocking or subscribing connection it would cut
 * off the very wait the connection exists for.
 */
export function roleOptions(role: RedisRole, commandTimeoutMs?: number): RedisOptions {
  const base: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  switch (role) {
    case 'commands':
      return commandTimeoutMs === undefined ? base : { ...base, commandTimeout: commandTimeoutMs };
    case 'probe':
      return {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
        ...(commandTimeoutMs === undefined ? {} : { commandTimeout: commandTimeoutMs }),
      };
    case 'subscriber':
    case 'bullmq':
    case 'blocking':
      if (commandTimeoutMs !== undefined)
        throw new Error(`a ${role} connection takes no command timeout`);
      return base;
  }
}

/** The one place the mesh opens a Redis connection. */
export function createRedis(role: RedisRole, options: CreateRedisOptions): RedisClient {
  return new Redis(options.url, {
    ...roleOptions(role, options.commandTimeoutMs),
    connectionName: options.name,
    lazyConnect: options.lazyConnect ?? role === 'probe',
  });
}

/**
 * The one way to close a connection; never throws, and returns once it has ended or after about
 * `timeoutMs`. A ready connection quits (its pending replies arrive first); any other is
 * disconnected, since QUIT would wait for a Redis that is down, and so is one whose QUIT got no
 * answer in time (its pending commands fail with "Connection is closed").
 */
export async function closeRedis(client: RedisClient, timeoutMs = 2000): Promise<void> {
  if (client.status === 'end') return;
  const ended = new Promise<boolean>((resolve) => client.once('end', () => resolve(true)));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const quitted =
      client.status === 'ready' &&
      (await Promise.race([
        client.quit().then(
          () => true,
          () => false,
        ),
        late,
      ]));
    if (!quitted) client.disconnect();
    await Promise.race([ended, late]);
  } catch {
    // A close is best effort: the process is stopping either way.
  } finally {
    clearTimeout(timer);
  }
}
