export { ConfigError, type ConfigIssue } from './config.errors';
export { requiredWith, setTogether } from './config-checks';
export { loadConfig } from './load-config';
export {
  closeRedis,
  createRedis,
  isCluster,
  primariesOf,
  roleOptions,
  type CreateRedisConnectionOptions,
  type CreateRedisOptions,
  type RedisClient,
  type RedisRole,
} from './redis-factory';
export {
  DEFAULT_REDIS_URL,
  describeRedisEndpoint,
  formatHostPort,
  parseHostPort,
  redisEndpointOf,
  redisHosts,
  redisIssues,
  standaloneEndpoint,
  type HostPort,
  type RedisEndpoint,
  type RedisEnvValues,
  type RedisMode,
} from './redis-endpoint';
export {
  isStoreUnavailable,
  STORE_COMMAND_TIMEOUT_MS,
  STORE_RETRY_AFTER_SECONDS,
} from './redis.errors';
export { ReplicaAckError, waitForReplicas, type ReplicaAck } from './redis-replica-ack';
export { checkRedisServer, RedisSettingsError, type RedisServerReport } from './redis.check';
export {
  commaList,
  commonEnv,
  endpoints,
  fraction,
  hostPorts,
  intBetween,
  keyPrefix,
  logLevel,
  pemFile,
  port,
  positiveInt,
  redisEnv,
  redisUrl,
} from './env.schema';
