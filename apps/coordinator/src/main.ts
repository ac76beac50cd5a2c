import 'reflect-metadata';
import { bootstrapApp } from '@mesh/telemetry';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { loadCoordinatorConfig } from '@mesh/app-config';
import { CoordinatorModule } from './coordinator.module';
import { CoordinatorErrorFilter } from './http/coordinator-error.hook';
import { buildCoordinatorOpenApi } from './openapi/coordinator.openapi';

void bootstrapApp({
  service: 'coordinator',
  loadConfig: loadCoordinatorConfig,
  module: ({ config, logger }) => CoordinatorModule.register(config, logger),
  http: (config) => ({ timeouts: config }),
  httpPort: (config) => config.COORDINATOR_PORT,
  configure: (app, { logger }) => {
    const filter = new CoordinatorErrorFilter(logger);
    // Also answers body-parsing failures (before any handler): Nest installs Fastify's error
    // handler at init and hands those errors to the global filters, so a handler of our own
    // would only be replaced (Fastify's FSTWRN004 at every start).
    app.useGlobalFilters(filter);
    // Generated from the zod schemas (src/openapi), as on the router; Swagger UI only serves it.
    SwaggerModule.setup('docs', app, buildCoordinatorOpenApi() as unknown as OpenAPIObject);
  },
});
