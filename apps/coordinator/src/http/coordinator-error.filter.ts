import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { errorBody, errorCodeOf, type ErrorCode, type ErrorReply } from '@mesh/errors';
import { payloadTooLargeOf } from '@mesh/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** Framework failures (unknown path, body parsing) by their HTTP status. */
const FRAMEWORK_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_JSON',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Every HTTP error (Nest's, Fastify's body parsing, the domain's) gets the same JSON shape,
 * with its status from `@mesh/errors`' one table.
 */
@Catch()
export class CoordinatorErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(err, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  reply(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, body } = coordinatorErrorReply(payloadTooLargeOf(err, request) ?? err);
    if (status >= 500) this.logger.error({ err, url: request.url }, 'request failed');
    void reply.status(status).header('content-type', 'application/json').send(body);
  }
}

/** The table's answer, with framework exceptions placed by their own HTTP status. */
export function coordinatorErrorReply(err: unknown): ErrorReply {
  const code = errorCodeOf(err);
  return errorBody(err, code === 'INTERNAL' ? (frameworkCodeOf(err) ?? code) : code);
}

function frameworkCodeOf(err: unknown): ErrorCode | undefined {
  const e = (err ?? {}) as { statusCode?: unknown; status?: unknown; getStatus?: unknown };
  const http =
    typeof e.statusCode === 'number'
      ? e.statusCode
      : typeof e.status === 'number'
        ? e.status
        : typeof e.getStatus === 'function'
          ? (e as { getStatus(): unknown }).getStatus()
          : undefined;
  return typeof http === 'number' ? FRAMEWORK_STATUS[http] : undefined;
}
