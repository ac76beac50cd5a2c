import 'reflect-metadata';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { kservePoolOptionsFromEnv } from '@mesh/kserve';
import { PreprocessingService } from '@mesh/preprocessing';
import { bootstrapApp } from '@mesh/telemetry';
import { loadBatchWorkerConfig } from '@mesh/app-config';
import { BatchWorkerModule } from './batch-worker.module';
import { WorkerInference } from './core/worker-inference';

void bootstrapApp({
  service: 'batch-worker',
  loadConfig: loadBatchWorkerConfig,
  prepare: async (config, logger) => {
    // The same catalog the router loads: a pinned version tokenizes here exactly as there.
    const catalog = await VersionCatalog.load(
      config.MODEL_REPOSITORY,
      new PreprocessingService(),
      logger,
    );
    return new WorkerInference(
      catalog,
      new KServeBackends(kservePoolOptionsFromEnv(config), logger),
    );
  },
  module: ({ config, logger, prepared }) => BatchWorkerModule.register(config, logger, prepared),
  http: (config) => ({ timeouts: config }),
  httpPort: (config) => config.WORKER_PORT,
});
