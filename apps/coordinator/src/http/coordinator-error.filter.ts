import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { errorReply } from './coordinator-error.table';

/** Every HTTP error (Nest's, Fastify's body parsing, the domain's) gets the same JSON shape. */
@Catch()
export class CoordinatorErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(err, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  reply(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, body } = errorReply(err);
    if (status >= 500) this.logger.error({ err, url: request.url }, 'request failed');
    void reply.status(status).header('content-type', 'application/json').send(body);
  }
}
