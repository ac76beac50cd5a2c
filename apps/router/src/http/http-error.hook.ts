import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { payloadTooLargeOf } from '@mesh/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { describeError, errorBody } from '../errors/error-view';
import { MethodNotAllowedError } from '../errors/router.errors';
import type { RouteMethodIndex } from './route-methods-index';

/**
 * Every error leaving an HTTP handler becomes `{error: {code, message, details?}}` with the
 * status from the error table (plus Retry-After on 429s, Allow on 405s). Also installed as
 * Fastify's own error handler, so body-parsing failures (413, 415, bad JSON) get the same shape.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly routes?: RouteMethodIndex,
  ) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(err, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  reply(thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
    let err = payloadTooLargeOf(thrown, request) ?? thrown;
    let view = describeError(err);
    if (view.code === 'ROUTE_NOT_FOUND' && this.routes) {
      const allow = this.routes.allowed(request.url);
      if (allow.length > 0) {
        err = new MethodNotAllowedError(request.method, allow);
        view = describeError(err);
        void reply.header('allow', allow.join(', '));
      }
    }
    if (view.code === 'UNSUPPORTED_MEDIA_TYPE') {
      const got = request.headers['content-type'];
      view = {
        ...view,
        message: `content-type must be application/json (got ${got ? `'${got}'` : 'none'})`,
      };
    }
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
