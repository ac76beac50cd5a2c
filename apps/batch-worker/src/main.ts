import 'reflect-metadata';
import { createHttpApp, createLogger, listenHttp, runMain } from '@mesh/telemetry';
import { loadBatchWorkerConfig } from './batch-worker.config';
import { BatchWorkerModule } from './batch-worker.module';

void runMain('batch-worker', async () => {
  const config = loadBatchWorkerConfig();
  const logger = createLogger('batch-worker', config.LOG_LEVEL);
  const app = await createHttpApp(BatchWorkerModule.register(config), logger);
  await listenHttp(app, config.WORKER_PORT, config.HOST, logger, 'http');
  return { app, logger };
});
