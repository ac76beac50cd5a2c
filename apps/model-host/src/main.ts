import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  announceListening,
  createHttpApp,
  createLogger,
  createMetricsRegistry,
  listenHttp,
  runMain,
} from '@mesh/telemetry';
import { createServerCredentials, grpcServerTlsFrom } from '@mesh/kserve';
import { HostAccessLog } from './core/host-access.log';
import { HostMetrics } from './core/host.metrics';
import { ModelHostService } from './core/model-host.service';
import { GrpcServer } from './grpc/grpc.server';
import { HostErrorFilter } from './http/host-error.filter';
import { MetricsServer } from './http/metrics.server';
import { installRawBodyParser } from './http/raw-body.parser';
import { loadModelHostConfig } from './model-host.config';
import { ModelHostModule } from './model-host.module';
import { ModelFilesRepository } from './repository/model-files.repository';
import { ModelManagerService } from './repository/model-manager.service';

void runMain('model-host', async () => {
  const config = loadModelHostConfig();
  const logger = createLogger('model-host', config.LOG_LEVEL);
  const registry = createMetricsRegistry('model-host');
  const models = new ModelManagerService(
    new ModelFilesRepository(resolve(config.MODEL_REPOSITORY)),
    config.MODEL_CONTROL_MODE,
    {
      intraOpThreads: config.ORT_INTRA_OP_THREADS,
      interOpThreads: config.ORT_INTER_OP_THREADS,
      graphOptimizationLevel: config.ORT_GRAPH_OPTIMIZATION_LEVEL,
      allowSpinning: config.ORT_ALLOW_SPINNING === '1' || config.ORT_ALLOW_SPINNING === 'true',
      loneBatchThreads: config.ORT_LONE_BATCH_THREADS,
      cores: availableParallelism(),
    },
    new HostMetrics(registry),
    logger,
  );
  const host = new ModelHostService(models);
  await models.start(config.loadModels);

  const access = new HostAccessLog(logger, config.MODEL_HOST_ACCESS_LOG_SAMPLE);
  const grpcServer = new GrpcServer(host, config.GRPC_MAX_MESSAGE_BYTES, logger, access);
  const metricsServer = new MetricsServer(registry);
  const app = await createHttpApp(ModelHostModule.register(host, access), logger, {
    bodyLimitBytes: config.GRPC_MAX_MESSAGE_BYTES,
    nestBodyParsers: false,
    timeouts: config,
  });
  const fastify = app.getHttpAdapter().getInstance();
  installRawBodyParser(fastify);
  const errors = new HostErrorFilter();
  app.useGlobalFilters(errors);
  fastify.setErrorHandler((err, _request, reply) => errors.reply(err, reply));
  await listenHttp(app, config.MODEL_HOST_HTTP_PORT, config.HOST, logger, 'http');
  const grpcPort = await grpcServer.listen(
    config.HOST,
    config.MODEL_HOST_GRPC_PORT,
    createServerCredentials(grpcServerTlsFrom(config, 'MODEL_HOST_GRPC')),
  );
  announceListening(logger, 'grpc', `grpc://${config.HOST}:${grpcPort}`);
  const metricsPort = await metricsServer.listen(config.HOST, config.MODEL_HOST_METRICS_PORT);
  announceListening(logger, 'metrics', `http://${config.HOST}:${metricsPort}`);

  // Shutdown: stop taking calls, let in-flight ones finish, then end the sessions.
  const close = async () => {
    host.stopping();
    await Promise.all([
      grpcServer.close(config.SHUTDOWN_DRAIN_MS),
      app.close(),
      metricsServer.close(),
    ]);
    await models.close();
  };
  return { app: { close }, logger };
});
