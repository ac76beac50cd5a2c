import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { describeError, errorBody } from '../errors/error-view';

/**
 * Every error leaving an HTTP handler becomes `{error: {code, message, details?}}` with the
 * status from the error table (plus Retry-After on 429s). Also installed as Fastify's own error
 * handler, so body-parsing failures (413, bad JSON) get the same shape.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(err, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  reply(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const view = describeError(err);
    if (view.serverFault) {
      this.logger.error(
        { err, requestId: request.headers['x-request-id'], url: request.url },
        view.message,
      );
    }
    if (view.retryAfterSeconds !== undefined) {
      void reply.header('retry-after', String(view.retryAfterSeconds));
    }
    void reply
      .status(view.mapping.http)
      .header('content-type', 'application/json')
      .send(errorBody(view));
  }
}
