import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { NestPinoLogger } from './nest-logger';
import { announceListening, httpUrlOf } from './run-app';

export interface HttpAppOptions {
  /** Largest accepted request body; bigger bodies get 413 before any handler runs. */
  bodyLimitBytes?: number;
  /** Answers requests Node cannot parse (e.g. headers over the limit) in the app's error shape. */
  clientErrorHandler?: FastifyServerOptions['clientErrorHandler'];
  /**
   * False keeps Nest from adding its JSON and urlencoded parsers, so the app installs exactly
   * the body parsers it accepts (anything else is 415). Default true.
   */
  nestBodyParsers?: boolean;
  /** Cut-offs for slow clients (slow headers, slow bodies); from the app's common env. */
  timeouts?: { HTTP_REQUEST_TIMEOUT_MS: number; HTTP_HEADERS_TIMEOUT_MS: number };
}

/** A Nest application on Fastify whose logs go to the process's pino logger. */
export async function createHttpApp(
  module: Type | DynamicModule,
  logger: Logger,
  options: HttpAppOptions = {},
): Promise<NestFastifyApplication> {
  const requestMs = options.timeouts?.HTTP_REQUEST_TIMEOUT_MS ?? 300_000;
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const adapter = new FastifyAdapter({
    bodyLimit,
    // Without it Fastify disables Node's request timeout: a client trickling its body one byte
    // at a time would hold its socket (and the request's memory) forever.
    requestTimeout: requestMs,
    http: {
      // The header cut-off may not exceed the request one.
      headersTimeout: Math.min(options.timeouts?.HTTP_HEADERS_TIMEOUT_MS ?? 10_000, requestMs),
      // Node looks for overdue requests on this period (30 s by default, so a cut-off could
      // come up to 30 s late); one pass over the open connections per second is cheap.
      connectionsCheckingInterval: 1000,
    },
    ...(options.clientErrorHandler ? { clientErrorHandler: options.clientErrorHandler } : {}),
  });
  refuseOversizedBeforeUpload(adapter.getInstance().server, bodyLimit);
  return NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    bodyParser: options.nestBodyParsers ?? true,
  });
}

/**
 * A client that sends `Expect: 100-continue` (curl does for large bodies) waits for the go-ahead
 * before uploading. Node gives it at once by default, so an over-limit body was uploaded only to
 * be refused, and the refusal (sent with `Connection: close` while the body still streamed in)
 * could be lost to the connection reset. Withholding the go-ahead when the declared length is
 * over the limit lets the app's own 413 reach the client before any of the body is sent.
 */
function refuseOversizedBeforeUpload(server: Server, limitBytes: number): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers['content-length']) > limitBytes)) res.writeContinue();
    server.emit('request', req, res);
  });
}

/** Listens on host:port (0 = any free port) and announces the resolved URL. */
export async function listenHttp(
  app: INestApplication,
  port: number,
  host: string,
  logger: Logger,
  listener: string,
): Promise<string> {
  await app.listen(port, host);
  const url = httpUrlOf(app, host);
  announceListening(logger, listener, url);
  return url;
}
