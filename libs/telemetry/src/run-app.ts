import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  ConfigError,
  describeRedisEndpoint,
  RedisSettingsError,
  type RedisEndpoint,
} from '@mesh/config';

/**
 * Standard `main()` wrapper: a ConfigError (or any boot failure) prints one clear message and
 * exits non-zero; SIGTERM/SIGINT close the app (Nest shutdown hooks drain what each module owns)
 * under a deadline, then exit.
 */
export async function runMain(
  service: string,
  boot: () => Promise<{ app: { close(): Promise<void> }; logger: Logger }>,
  shutdownDeadlineMs = 10_000,
): Promise<void> {
  let booted: Awaited<ReturnType<typeof boot>>;
  try {
    booted = await boot();
  } catch (err: unknown) {
    if (err instanceof ConfigError || err instanceof RedisSettingsError) {
      process.stderr.write(`${err.message}\n`);
    } else {
      const msg = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`${service}: failed to start: ${msg}\n`);
    }
    process.exit(1);
  }
  const { app, logger } = booted;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ event: 'shutdown', signal }, `${service} shutting down`);
    const timer = setTimeout(() => {
      logger.error(
        { event: 'shutdown-timeout' },
        `${service} did not stop within ${shutdownDeadlineMs} ms`,
      );
      process.exit(1);
    }, shutdownDeadlineMs);
    timer.unref();
    app.close().then(
      () => {
        logger.info({ event: 'stopped' }, `${service} stopped`);
        logger.flush();
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, `${service} failed to stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/** Logs the bound address in a fixed shape that `npm run up` and the e2e harness read. */
export function announceListening(logger: Logger, name: string, url: string): void {
  logger.info({ event: 'listening', listener: name, url }, `${name} listening on ${url}`);
}

/**
 * Says which Redis key namespace this process uses (`REDIS_KEY_PREFIX`): apps sharing one Redis
 * only see each other's routes, jobs and heartbeats under the same prefix. With the endpoint,
 * also its mode and nodes (`describeRedisEndpoint`: never credentials).
 */
export function announceRedisPrefix(
  logger: Logger,
  keyPrefix: string,
  endpoint?: RedisEndpoint,
): void {
  const where =
    endpoint === undefined ? {} : { mode: endpoint.mode, redis: describeRedisEndpoint(endpoint) };
  logger.info({ event: 'redis', keyPrefix, ...where }, `redis key prefix "${keyPrefix}"`);
}

/** The URL of a listening Nest/Fastify app (resolves port 0 to the real one). */
export function httpUrlOf(app: INestApplication, host: string): string {
  const server = app.getHttpServer() as import('node:net').Server;
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('server is not listening on TCP');
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
