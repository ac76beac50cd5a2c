import 'reflect-metadata';
import { join } from 'node:path';
import { VersionCatalog } from '@mesh/inference';
import { createServerCredentials, grpcServerTlsFrom, resolveProtoDir } from '@mesh/kserve';
import { PreprocessingService } from '@mesh/preprocessing';
import { announceListening, bootstrapApp } from '@mesh/telemetry';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { MeshGrpcServer } from './grpc/mesh-grpc-server';
import { answerClientError, type ClientErrorListener } from './http/client-error.hook';
import { HttpErrorFilter } from './http/http-error.hook';
import { installJsonBodyParser } from './http/json-body.parser';
import { RouteMethodIndex } from './http/route-methods-index';
import { buildRouterOpenApi } from './openapi/router.openapi';
import { NDJSON } from './jobs/jobs.controller';
import { installAccessLogHook, installRequestIdHook } from './http/request-id.hook';
import { countClientErrors, installRequestCountHook } from './http/request-count.hook';
import { installTraceHook } from './http/trace.hook';
import { AccessLog } from './access-log';
import { RouterMetrics } from './router.metrics';
import { GrpcCallRecorder } from './grpc/grpc-call-recorder';
import { loadRouterConfig, type RouterConfig } from '@mesh/app-config';
import { RouterModule } from './router.module';

/** Counts what answerClientError answers, once the app (and its metrics) exist. */
let clientErrorAnswered: ClientErrorListener = () => undefined;

void bootstrapApp({
  service: 'router',
  loadConfig: loadRouterConfig,
  prepare: async (config, logger) => ({
    catalog: await loadCatalog(config, logger),
    grpc: grpcServer(config),
  }),
  module: ({ config, logger, prepared }) => RouterModule.register(config, logger, prepared.catalog),
  http: (config) => ({
    bodyLimitBytes: config.ROUTER_BODY_LIMIT_BYTES,
    clientErrorHandler: (err, socket) =>
      answerClientError(err, socket, (path, code) => clientErrorAnswered(path, code)),
    nestBodyParsers: false,
    timeouts: config,
  }),
  httpPort: (config) => config.ROUTER_HTTP_PORT,
  configure: (app, { logger, prepared }) => {
    configureHttp(app, logger);
    const recorder = new GrpcCallRecorder(app.get(AccessLog), app.get(RouterMetrics));
    prepared.grpc.onRefusal((path, err) => recorder.refusedCall(path, err));
    clientErrorAnswered = countClientErrors(app.get(RouterMetrics));
    app.connectMicroservice({ strategy: prepared.grpc });
  },
  afterListen: (_app, { config, logger, prepared }) =>
    announceListening(logger, 'grpc', `${config.HOST}:${prepared.grpc.boundPort()}`),
  close: closeDraining,
});

async function loadCatalog(config: RouterConfig, logger: Logger): Promise<VersionCatalog> {
  const catalog = await VersionCatalog.load(
    config.MODEL_REPOSITORY,
    new PreprocessingService(undefined, undefined, config.ROUTER_PAD_MULTIPLE),
    logger,
  );
  logger.info(
    { event: 'catalog', servable: catalog.all().length, unroutable: catalog.allProblems().length },
    'model repository loaded',
  );
  return catalog;
}

function configureHttp(app: NestFastifyApplication, logger: Logger): void {
  const fastify = app.getHttpAdapter().getInstance();
  const routes = new RouteMethodIndex();
  routes.install(fastify);
  // Also answers body-parsing failures (413, malformed JSON) before any handler: Nest installs
  // Fastify's error handler at init and hands those errors to the global filters, so a handler
  // of our own would only be replaced (Fastify's FSTWRN004 at every start).
  app.useGlobalFilters(new HttpErrorFilter(logger, routes));
  installRequestIdHook(fastify);
  installTraceHook(fastify);
  installAccessLogHook(fastify, app.get(AccessLog));
  installRequestCountHook(fastify, app.get(RouterMetrics));
  installJsonBodyParser(fastify);
  // NDJSON job uploads reach the handler as the raw stream: the job parser enforces its own
  // byte and item caps while storing, so the body is never held in memory.
  fastify.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));
  // Generated from the edges' zod schemas (src/openapi); Swagger UI only serves it.
  SwaggerModule.setup('docs', app, buildRouterOpenApi() as unknown as OpenAPIObject);
}

/**
 * Stops taking work and lets in-flight requests finish. A keep-alive connection whose request
 * was still running when the close began only goes idle afterwards, and Node would keep it
 * open until its keep-alive timeout; closing idle connections until the server is down lets
 * the process exit as soon as the last answer is sent.
 */
async function closeDraining(app: NestFastifyApplication): Promise<void> {
  const server = app.getHttpServer();
  const timer = setInterval(() => server.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearInterval(timer);
  }
}

function grpcServer(config: RouterConfig): MeshGrpcServer {
  return new MeshGrpcServer(
    {
      package: 'mesh.v1',
      protoPath: ['predictor.proto', 'jobs.proto'].map((f) =>
        join(resolveProtoDir(), 'mesh', 'v1', f),
      ),
      url: `${config.HOST}:${config.ROUTER_GRPC_PORT}`,
      loader: { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true },
    },
    Math.max(config.ROUTER_BODY_LIMIT_BYTES, 1024 * 1024),
    createServerCredentials(grpcServerTlsFrom(config, 'ROUTER_GRPC')),
  );
}
