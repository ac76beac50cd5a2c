import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ERROR_STATUS } from '../core/error-status-map';
import { toHostError } from '../core/model-host.errors';

/**
 * KServe v2 REST errors as Triton sends them: `{"error": "<message>"}` with the mapped status.
 * Installed globally (unknown paths and methods too) and as Fastify's error handler (bodies
 * rejected before a handler runs, e.g. over the size limit).
 */
@Catch()
export class HostErrorFilter implements ExceptionFilter {
  catch(err: unknown, host: ArgumentsHost): void {
    this.reply(err, host.switchToHttp().getResponse<FastifyReply>());
  }

  reply(err: unknown, reply: FastifyReply): void {
    if (err instanceof HttpException) {
      void reply.status(err.getStatus()).send({ error: err.message });
      return;
    }
    const status = (err as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      void reply.status(status).send({ error: (err as Error).message });
      return;
    }
    const e = toHostError(err);
    void reply.status(ERROR_STATUS[e.code].http).send({ error: e.message });
  }
}
