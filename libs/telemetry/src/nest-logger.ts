import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

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
    this.logger.info({ context }, servedPath(String(message), context));
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
