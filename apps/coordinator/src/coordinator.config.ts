import { commonEnv, loadConfig, port, redisEnv } from '@mesh/config';

const coordinatorEnv = {
  ...commonEnv,
  ...redisEnv,
  COORDINATOR_PORT: port(8090),
};

export type CoordinatorConfig = ReturnType<typeof loadCoordinatorConfig>;

export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('coordinator', coordinatorEnv, env);
}
