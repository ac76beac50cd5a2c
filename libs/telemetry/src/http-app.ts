import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { NestPinoLogger } from './nest-logger';
import { announceListening, httpUrlOf } from './run-app';

export interface HttpAppOptions {
  /** Largest accepted request body; bigger bodies get 413 before any handler runs. */
  bodyLimitBytes?: number;
}

/** A Nest application on Fastify whose logs go to the process's pino logger. */
export async function createHttpApp(
  module: Type | DynamicModule,
  logger: Logger,
  options: HttpAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: options.bodyLimitBytes ?? 1024 * 1024,
  });
  return NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
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
