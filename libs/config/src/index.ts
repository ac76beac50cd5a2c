export { ConfigError, type ConfigIssue } from './config.errors';
export { loadConfig } from './load-config';
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
