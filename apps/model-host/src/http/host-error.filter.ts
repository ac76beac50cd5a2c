import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ERROR_STATUS } from '../core/error-status.map';
import { toHostError } from '../core/model-host.errors';

/** KServe v2 REST errors as Triton sends them: `{"error": "<message>"}` with the mapped status. */
@Catch()
export class HostErrorFilter implements ExceptionFilter {
  catch(err: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (err instanceof HttpException) {
      void reply.status(err.getStatus()).send({ error: err.message });
      return;
    }
    const e = toHostError(err);
    void reply.status(ERROR_STATUS[e.code].http).send({ error: e.message });
  }
}
