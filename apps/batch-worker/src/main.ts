import 'reflect-metadata';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { kservePoolOptionsFromEnv } from '@mesh/kserve';
import { PreprocessingService } from '@mesh/preprocessing';
import {
  announceRedisPrefix,
  createHttpApp,
  createLogger,
  listenHttp,
  runMain,
} from '@mesh/telemetry';
import { loadBatchWorkerConfig } from './batch-worker.config';
import { BatchWorkerModule } from './batch-worker.module';
import { WorkerInference } from './core/worker-inference';

void runMain('batch-worker', async () => {
  const config = loadBatchWorkerConfig();
  const logger = createLogger('batch-worker', config.LOG_LEVEL);
  announceRedisPrefix(logger, config.REDIS_KEY_PREFIX);
  // The same catalog the router loads: a pinned version tokenizes here exactly as there.
  const catalog = await VersionCatalog.load(
    config.MODEL_REPOSITORY,
    new PreprocessingService(),
    logger,
  );
  const backends = new KServeBackends(kservePoolOptionsFromEnv(config), logger);
  const inference = new WorkerInference(catalog, backends);
  const app = await createHttpApp(BatchWorkerModule.register(config, logger, inference), logger, {
    timeouts: config,
  });
  await listenHttp(app, config.WORKER_PORT, config.HOST, logger, 'http');
  return { app, logger };
});
