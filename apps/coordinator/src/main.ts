import 'reflect-metadata';
import { bootstrapApp } from '@mesh/telemetry';
import type { FastifyError } from 'fastify';
import { loadCoordinatorConfig } from './coordinator.config';
import { CoordinatorModule } from './coordinator.module';
import { CoordinatorErrorFilter } from './http/coordinator-error.filter';

void bootstrapApp({
  service: 'coordinator',
  loadConfig: loadCoordinatorConfig,
  module: ({ config, logger }) => CoordinatorModule.register(config, logger),
  http: (config) => ({ timeouts: config }),
  httpPort: (config) => config.COORDINATOR_PORT,
  configure: (app, { logger }) => {
    const filter = new CoordinatorErrorFilter(logger);
    app.useGlobalFilters(filter);
    // Body-parsing failures happen before Nest: same JSON error shape.
    app
      .getHttpAdapter()
      .getInstance()
      .setErrorHandler((err: FastifyError, request, reply) => filter.reply(err, request, reply));
  },
});
