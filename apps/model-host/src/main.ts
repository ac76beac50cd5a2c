import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  announceListening,
  bootstrapApp,
  createMetricsRegistry,
  type Logger,
} from '@mesh/telemetry';
import { createServerCredentials, grpcServerTlsFrom } from '@mesh/kserve';
import { HostAccessLog } from './core/host-access-log';
import { HostMetrics } from './core/host.metrics';
import { ModelHostService } from './core/model-host.service';
import { GrpcServer } from './grpc/grpc-server';
import { HostErrorFilter } from './http/host-error.hook';
import { MetricsServer } from './http/metrics-server';
import { installRawBodyParser } from './http/raw-body.parser';
import { loadModelHostConfig, type ModelHostConfig } from '@mesh/app-config';
import { ModelHostModule } from './model-host.module';
import { ModelFilesRepository } from './repository/model-files.repository';
import { ModelManagerService } from './repository/model-manager.service';

void bootstrapApp({
  service: 'model-host',
  loadConfig: loadModelHostConfig,
  prepare: startModels,
  module: ({ prepared }) => ModelHostModule.register(prepared.host, prepared.access),
  http: (config) => ({
    bodyLimitBytes: config.GRPC_MAX_MESSAGE_BYTES,
    nestBodyParsers: false,
    timeouts: config,
  }),
  httpPort: (config) => config.MODEL_HOST_HTTP_PORT,
  configure: (app) => {
    const fastify = app.getHttpAdapter().getInstance();
    installRawBodyParser(fastify);
    // Also answers body-parsing failures: Nest installs Fastify's error handler at init and
    // hands those errors to the global filters, so a handler of our own would only be replaced
    // (Fastify's FSTWRN004 at every start).
    app.useGlobalFilters(new HostErrorFilter());
  },
  // gRPC and metrics listen apart from Nest, after HTTP as before.
  afterListen: async (_app, { config, logger, prepared }) => {
    const grpcPort = await prepared.grpcServer.listen(
      config.HOST,
      config.MODEL_HOST_GRPC_PORT,
      createServerCredentials(grpcServerTlsFrom(config, 'MODEL_HOST_GRPC')),
    );
    announceListening(logger, 'grpc', `grpc://${config.HOST}:${grpcPort}`);
    const metricsPort = await prepared.metricsServer.listen(
      config.HOST,
      config.MODEL_HOST_METRICS_PORT,
    );
    announceListening(logger, 'metrics', `http://${config.HOST}:${metricsPort}`);
  },
  // Stop taking calls, let in-flight ones finish, then end the sessions.
  close: async (app, { config, prepared }) => {
    prepared.host.stopping();
    await Promise.all([
      prepared.grpcServer.close(config.SHUTDOWN_DRAIN_MS),
      app.close(),
      prepared.metricsServer.close(),
    ]);
    await prepared.models.close();
  },
});

/**
 * glibc's default raises its mmap threshold as large blocks are freed, after which an unloaded
 * version's weights stay in its heaps and load-time RSS deltas under-measure (README: Memory).
 */
function warnOfAllocator(config: ModelHostConfig, logger: Logger): void {
  if (config.MODEL_HOST_MEMORY_BUDGET_MB === undefined) return;
  if (process.env.MALLOC_MMAP_THRESHOLD_ !== undefined) return;
  logger.warn(
    'MODEL_HOST_MEMORY_BUDGET_MB is set but MALLOC_MMAP_THRESHOLD_ is not: unloaded versions may stay resident in the allocator; set MALLOC_MMAP_THRESHOLD_=131072',
  );
}

/** Loads the startup models before any port opens, and builds the listeners around them. */
async function startModels(config: ModelHostConfig, logger: Logger) {
  const registry = createMetricsRegistry('model-host');
  const models = new ModelManagerService(
    new ModelFilesRepository(resolve(config.MODEL_REPOSITORY)),
    config.MODEL_CONTROL_MODE,
    {
      intraOpThreads: config.ORT_INTRA_OP_THREADS,
      interOpThreads: config.ORT_INTER_OP_THREADS,
      graphOptimizationLevel: config.ORT_GRAPH_OPTIMIZATION_LEVEL,
      allowSpinning: config.ORT_ALLOW_SPINNING === '1' || config.ORT_ALLOW_SPINNING === 'true',
      spinBetweenRuns:
        config.ORT_SPIN_BETWEEN_RUNS === '1' || config.ORT_SPIN_BETWEEN_RUNS === 'true',
      loneBatchThreads: config.ORT_LONE_BATCH_THREADS,
      poolThreadNice: config.ORT_POOL_THREAD_NICE,
      cores: availableParallelism(),
    },
    new HostMetrics(registry),
    logger,
    { budgetMb: config.MODEL_HOST_MEMORY_BUDGET_MB },
  );
  const host = new ModelHostService(models);
  warnOfAllocator(config, logger);
  await models.start(config.loadModels);
  const access = new HostAccessLog(logger, config.MODEL_HOST_ACCESS_LOG_SAMPLE);
  return {
    models,
    host,
    access,
    grpcServer: new GrpcServer(host, config.GRPC_MAX_MESSAGE_BYTES, logger, access),
    metricsServer: new MetricsServer(registry),
  };
}
