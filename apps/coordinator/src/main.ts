import 'reflect-metadata';
import { createHttpApp, createLogger, listenHttp, runMain } from '@mesh/telemetry';
import { loadCoordinatorConfig } from './coordinator.config';
import { CoordinatorModule } from './coordinator.module';

void runMain('coordinator', async () => {
  const config = loadCoordinatorConfig();
  const logger = createLogger('coordinator', config.LOG_LEVEL);
  const app = await createHttpApp(CoordinatorModule.register(config), logger);
  await listenHttp(app, config.COORDINATOR_PORT, config.HOST, logger, 'http');
  return { app, logger };
});
