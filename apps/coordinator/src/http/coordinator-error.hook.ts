import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '@mesh/config';
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
    const { status, body, retryAfterSeconds } = coordinatorErrorReply(
      payloadTooLargeOf(err, request) ?? err,
    );
    if (status >= 500 && body.error.code === 'STORE_UNAVAILABLE') {
      this.logger.warn({ err: String(err), url: request.url }, 'Redis unavailable');
    } else if (status >= 500) {
      this.logger.error({ err, url: request.url }, 'request failed');
    }
    if (retryAfterSeconds !== undefined)
      void reply.header('retry-after', String(retryAfterSeconds));
    void reply.status(status).header('content-type', 'application/json').send(body);
  }
}

/**
 * The table's answer, with framework exceptions placed by their own HTTP status, and a store
 * that did not answer (Redis down, a failover in progress) as 503 STORE_UNAVAILABLE with the
 * seconds to wait before a retry.
 */
export function coordinatorErrorReply(err: unknown): ErrorReply & { retryAfterSeconds?: number } {
  const code = errorCodeOf(err);
  if (code === 'INTERNAL' && isStoreUnavailable(err)) {
    // Says what is down, never the client library's wording.
    const message = 'the rollout store (Redis) is unreachable; retry this call later';
    return {
      ...errorBody(new Error(message), 'STORE_UNAVAILABLE'),
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    };
  }
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
