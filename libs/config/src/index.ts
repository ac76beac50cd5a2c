export { ConfigError, type ConfigIssue } from './config.errors';
export { requiredWith, setTogether } from './config-checks';
export { loadConfig } from './load-config';
export {
  closeRedis,
  createRedis,
  roleOptions,
  type CreateRedisOptions,
  type RedisClient,
  type RedisRole,
} from './redis.factory';
export {
  commonEnv,
  endpoints,
  fraction,
  keyPrefix,
  logLevel,
  pemFile,
  port,
  positiveInt,
  redisEnv,
  redisUrl,
} from './env.schema';
