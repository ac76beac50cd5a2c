import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { redisEndpointOf, type RedisEnvValues } from '@mesh/config';
import type { LevelWithSilent } from 'pino';
import { createHttpApp, listenHttp, type HttpAppOptions } from './http-app';
import { createLogger, type Logger } from './logger';
import { checkRedisAtBoot } from './redis-boot.check';
import { announceRedisPrefix, runMain } from './run-app';
import { startTracing } from './tracing';

/** What every app's config has (commonEnv); `redisEnv` (REDIS_KEY_PREFIX...) when it uses Redis. */
export interface AppConfig extends RedisEnvValues {
  LOG_LEVEL: LevelWithSilent;
  HOST: string;
  REDIS_KEY_PREFIX?: string;
}

/** What the hooks of one boot see: the config, the logger and what `prepare` made. */
export interface BootContext<C extends AppConfig, P> {
  config: C;
  logger: Logger;
  prepared: P;
}

export interface BootstrapOptions<C extends AppConfig, P> {
  service: string;
  /** Throws ConfigError listing every bad variable; `runMain` prints it and exits 1. */
  loadConfig(): C;
  /** What the module needs before Nest starts (a model catalog, loaded models, servers). */
  prepare?(config: C, logger: Logger): Promise<P> | P;
  module(boot: BootContext<C, P>): Type | DynamicModule;
  http?(config: C): HttpAppOptions;
  httpPort(config: C): number;
  /** Before init: global filters, body parsers, microservices. */
  configure?(app: NestFastifyApplication, boot: BootContext<C, P>): void;
  /** Once the HTTP port is bound: listeners of its own, announced the same way. */
  afterListen?(app: NestFastifyApplication, boot: BootContext<C, P>): Promise<void> | void;
  /** Stops the app on SIGTERM/SIGINT; default `app.close()` (Nest's shutdown hooks). */
  close?(app: NestFastifyApplication, boot: BootContext<C, P>): Promise<void>;
}

/**
 * The one `main()` of the four apps: config (fail fast), logger, tracing (when an OTLP endpoint
 * is set; flushed after the app closed), the Redis settings check (an app with `redisEnv`),
 * prepare, a Nest app on Fastify, then init, microservices, HTTP, in that order. `app.init()`
 * comes first because `startAllMicroservices` does not run the bootstrap hooks: a gRPC port
 * would otherwise take calls before the app loaded what it serves (the router's routing table
 * and backends).
 */
export function bootstrapApp<C extends AppConfig, P = undefined>(
  options: BootstrapOptions<C, P>,
): Promise<void> {
  return runMain(options.service, async () => {
    const config = options.loadConfig();
    const logger = createLogger(options.service, config.LOG_LEVEL);
    const tracing = startTracing(options.service, logger);
    if (config.REDIS_KEY_PREFIX !== undefined) {
      const redis = redisEndpointOf(config);
      announceRedisPrefix(logger, config.REDIS_KEY_PREFIX, redis);
      await checkRedisAtBoot(options.service, redis, logger);
    }
    const prepared = (await options.prepare?.(config, logger)) as P;
    const boot: BootContext<C, P> = { config, logger, prepared };
    const app = await createHttpApp(options.module(boot), logger, options.http?.(config));
    options.configure?.(app, boot);
    await app.init();
    await app.startAllMicroservices();
    await listenHttp(app, options.httpPort(config), config.HOST, logger, 'http');
    await options.afterListen?.(app, boot);
    const close = options.close ?? (() => app.close());
    // Spans of the last requests leave after the drain, before the process exits.
    const closeAll = async () => {
      try {
        await close(app, boot);
      } finally {
        await tracing?.shutdown();
      }
    };
    return { app: { close: closeAll }, logger };
  });
}
