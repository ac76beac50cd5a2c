import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { standaloneEndpoint, type RedisEndpoint } from './redis-endpoint';

/**
 * A Redis connection of the mesh: an ioredis `Redis` (standalone, or a Sentinel-managed
 * primary) or a `Cluster`. Both take the same commands; what only one of them has (a cluster's
 * nodes) goes through the helpers below (`primariesOf`), not through a cast at the call site.
 */
export type RedisClient = Redis | Cluster;

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

export type CreateRedisOptions = (
  | {
      /** Where Redis is (`redisEndpointOf` the app's config): standalone, cluster or sentinel. */
      endpoint: RedisEndpoint;
      url?: undefined;
    }
  | {
      /** A standalone Redis by URL alone (tests, benches). */
      url: string;
      endpoint?: undefined;
    }
) &
  CreateRedisConnectionOptions;

export interface CreateRedisConnectionOptions {
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

/**
 * The one place the mesh opens a Redis connection, in whichever mode the endpoint names. A bare
 * URL is always one standalone server, so it gives a `Redis`.
 */
export function createRedis(
  role: RedisRole,
  options: { url: string; endpoint?: undefined } & CreateRedisConnectionOptions,
): Redis;
export function createRedis(role: RedisRole, options: CreateRedisOptions): RedisClient;
export function createRedis(role: RedisRole, options: CreateRedisOptions): RedisClient {
  const endpoint = options.endpoint ?? standaloneEndpoint(options.url);
  const tls = tlsOptions(endpoint);
  const lazyConnect = options.lazyConnect ?? role === 'probe';
  const node: RedisOptions = {
    ...roleOptions(role, options.commandTimeoutMs),
    connectionName: options.name,
    ...(endpoint.username === undefined ? {} : { username: endpoint.username }),
    ...(endpoint.password === undefined ? {} : { password: endpoint.password }),
    ...(tls === undefined ? {} : { tls }),
  };
  switch (endpoint.mode) {
    case 'standalone':
      // Credentials in the URL win over REDIS_USERNAME/REDIS_PASSWORD (ioredis fills in only
      // what the URL leaves out).
      return new Redis(endpoint.url, { ...node, lazyConnect });
    case 'sentinel':
      return new Redis({
        ...node,
        lazyConnect,
        sentinels: endpoint.sentinels.map(({ host, port }) => ({ host, port })),
        name: endpoint.masterName,
        role: 'master',
        ...(endpoint.sentinelPassword === undefined
          ? {}
          : { sentinelPassword: endpoint.sentinelPassword }),
        ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tls }),
        // A demoted primary (a manual or planned failover) answers writes with READONLY:
        // reconnect, which asks the Sentinels for the new one, and resend the command. A
        // crashed primary closes the connection, which reconnects the same way. (ioredis's
        // failoverDetector is left off: QUIT does not close its Sentinel connections.)
        reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 2 : false),
        ...(role === 'probe' ? { sentinelRetryStrategy: () => null } : {}),
      });
    case 'cluster': {
      const nodes = endpoint.nodes.map(({ host, port }) => ({ host, port }));
      const options = clusterOptions(role, node, lazyConnect, tls !== undefined);
      return node.commandTimeout === undefined
        ? new Cluster(nodes, options)
        : new TimedCluster(nodes, options, node.commandTimeout);
    }
  }
}

/**
 * A Cluster whose commands fail after `commandTimeoutMs` from the moment they are sent, as a
 * standalone connection's do. ioredis starts a command's timer only once a node connection
 * writes it, so while the whole cluster is unreachable a command would wait in the cluster's
 * own queue for as long as the outage lasts.
 */
class TimedCluster extends Cluster {
  constructor(
    nodes: ConstructorParameters<typeof Cluster>[0],
    options: ClusterOptions,
    private readonly commandTimeoutMs: number,
  ) {
    super(nodes, options);
  }

  override sendCommand(...args: Parameters<Cluster['sendCommand']>): unknown {
    // Idempotent: the node connection's own commandTimeout finds the timer already set.
    args[0].setTimeout(this.commandTimeoutMs);
    return super.sendCommand(...args);
  }
}

/**
 * TLS options when TLS is on (REDIS_TLS; a standalone `rediss://` URL turns it on by itself, and
 * takes the CA from here too): the CA file's certificates, else Node's trusted ones.
 */
function tlsOptions(endpoint: RedisEndpoint): ConnectionOptions | undefined {
  const rediss = endpoint.mode === 'standalone' && endpoint.url.startsWith('rediss://');
  if (!endpoint.tls && !rediss) return undefined;
  return endpoint.tlsCaFile === undefined ? {} : { ca: readFileSync(endpoint.tlsCaFile) };
}

/**
 * A Cluster's options: the role's node options go to every node connection; the cluster's
 * own offline queue and reconnects follow the role (a probe neither queues nor retries).
 */
function clusterOptions(
  role: RedisRole,
  node: RedisOptions,
  lazyConnect: boolean,
  tls: boolean,
): ClusterOptions {
  const { retryStrategy: _retry, enableOfflineQueue: _queue, ...redisOptions } = node;
  return {
    redisOptions,
    lazyConnect,
    enableReadyCheck: true,
    // Writes go to primaries; reads too, so a read sees the write before it.
    scaleReads: 'master',
    // With TLS, a node is reached by the name its certificate carries, not a resolved address.
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    ...(role === 'probe' ? { enableOfflineQueue: false, clusterRetryStrategy: () => null } : {}),
    // SSUBSCRIBE goes to the master owning the channel's slot (the job feed's per-job channels,
    // ADR 0018); plain SUBSCRIBE keeps the cluster-wide subscriber connection. A subscriber
    // sends no command that would meet a MOVED after a reshard or failover, so it refreshes its
    // slot map on a timer (ioredis sets none) and resubscribes on the slot's new owner.
    ...(role === 'subscriber'
      ? { shardedSubscribers: true, slotsRefreshInterval: SUBSCRIBER_SLOTS_REFRESH_MS }
      : {}),
  };
}

/** How often a Cluster subscriber reloads the slot map (see clusterOptions). */
const SUBSCRIBER_SLOTS_REFRESH_MS = 5000;

/** True for a Redis Cluster client. */
export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}

/**
 * The primaries behind a client: every master node of a Cluster (for SCAN, INFO, settings
 * checks: commands that answer for one node only), once it knows them; else the client itself.
 */
export async function primariesOf(client: RedisClient): Promise<Redis[]> {
  if (!isCluster(client)) return [client];
  // Until the cluster is ready its pool holds the seed nodes, which the first slots refresh
  // replaces (their connections close): a command waits for that first.
  if (client.status !== 'ready') await client.ping();
  return client.nodes('master');
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
