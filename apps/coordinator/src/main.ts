import 'reflect-metadata';
import { bootstrapApp } from '@mesh/telemetry';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { FastifyError } from 'fastify';
import { loadCoordinatorConfig } from './coordinator.config';
import { CoordinatorModule } from './coordinator.module';
import { CoordinatorErrorFilter } from './http/coordinator-error.filter';
import { buildCoordinatorOpenApi } from './openapi/coordinator.openapi';

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
    // Generated from the zod schemas (src/openapi), as on the router; Swagger UI only serves it.
    SwaggerModule.setup('docs', app, buildCoordinatorOpenApi() as unknown as OpenAPIObject);
  },
});
