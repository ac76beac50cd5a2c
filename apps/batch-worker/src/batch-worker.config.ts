import { commonEnv, loadConfig, port, redisEnv } from '@mesh/config';

const workerEnv = {
  ...commonEnv,
  ...redisEnv,
  WORKER_PORT: port(9100),
};

export type BatchWorkerConfig = ReturnType<typeof loadBatchWorkerConfig>;

export function loadBatchWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('batch-worker', workerEnv, env);
}
