import 'reflect-metadata';
import {
  announceRedisPrefix,
  createHttpApp,
  createLogger,
  listenHttp,
  runMain,
} from '@mesh/telemetry';
import type { FastifyError } from 'fastify';
import { loadCoordinatorConfig } from './coordinator.config';
import { CoordinatorModule } from './coordinator.module';
import { CoordinatorErrorFilter } from './http/coordinator-error.filter';

void runMain('coordinator', async () => {
  const config = loadCoordinatorConfig();
  const logger = createLogger('coordinator', config.LOG_LEVEL);
  announceRedisPrefix(logger, config.REDIS_KEY_PREFIX);
  const app = await createHttpApp(CoordinatorModule.register(config, logger), logger, {
    timeouts: config,
  });
  const filter = new CoordinatorErrorFilter(logger);
  app.useGlobalFilters(filter);
  const fastify = app.getHttpAdapter().getInstance();
  // Body-parsing failures happen before Nest: same JSON error shape.
  fastify.setErrorHandler((err: FastifyError, request, reply) => filter.reply(err, request, reply));
  await listenHttp(app, config.COORDINATOR_PORT, config.HOST, logger, 'http');
  return { app, logger };
});
