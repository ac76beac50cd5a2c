import Redis from 'ioredis';

/**
 * An ioredis connection for a named role. `maxRetriesPerRequest: null` keeps commands queued
 * while Redis restarts (BullMQ requires it for workers); readiness checks report the outage.
 * `commandTimeoutMs` bounds each command, queued time included, for connections that serve
 * callers: a request that needs Redis then fails fast ("Command timed out") instead of waiting
 * as long as the outage lasts. Never set it on a connection that runs blocking commands.
 */
export function createRedisClient(
  url: string,
  connectionName: string,
  { commandTimeoutMs }: { commandTimeoutMs?: number } = {},
): Redis {
  return new Redis(url, {
    connectionName,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
    ...(commandTimeoutMs !== undefined ? { commandTimeout: commandTimeoutMs } : {}),
  });
}
