import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Nest's start-up chatter: a line per module initialized, per controller and per route mapped,
 * and "application started" (each app announces its listeners itself). A hundred lines an
 * operator never reads at `info` hide the few that matter, so these contexts' `log` calls go
 * to `debug`; their warnings and errors keep their level.
 */
const STARTUP_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

/**
 * Nest logs each route as registered with find-my-way, where `::` escapes a literal colon
 * (`@Post('predict::batch')` serves `/v1/predict:batch`); print the path clients call.
 */
function servedPath(message: string, context?: string): string {
  return context === 'RouterExplorer' ? message.replace(/::/g, ':') : message;
}

/** Routes Nest's own log calls into the process's pino logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    const text = servedPath(String(message), context);
    if (context !== undefined && STARTUP_CONTEXTS.has(context)) {
      this.logger.debug({ context }, text);
    } else {
      this.logger.info({ context }, text);
    }
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
