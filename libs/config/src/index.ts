export { ConfigError, type ConfigIssue } from './config.errors';
export { loadConfig } from './load-config';
export { createRedisClient } from './redis';
export {
  commonEnv,
  endpoints,
  keyPrefix,
  logLevel,
  port,
  positiveInt,
  redisEnv,
  redisUrl,
} from './env.schema';
