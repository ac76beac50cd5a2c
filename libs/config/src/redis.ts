import Redis from 'ioredis';

/**
 * An ioredis connection for a named role. `maxRetriesPerRequest: null` keeps commands queued
 * while Redis restarts (BullMQ requires it for workers); readiness checks report the outage.
 */
export function createRedisClient(url: string, connectionName: string): Redis {
  return new Redis(url, {
    connectionName,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
  });
}
