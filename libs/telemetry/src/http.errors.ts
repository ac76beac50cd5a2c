import { MeshError, fieldPath, oneOfMessage } from '@mesh/errors';
import type { FastifyRequest } from 'fastify';

/** A problem with one field of a request, e.g. `command: must be one of ...`. */
export interface ParamIssue {
  path: string;
  message: string;
}

/** The request body is bigger than the app accepts on that route; the message names the limit. */
export class PayloadTooLargeError extends MeshError {
  readonly code = 'PAYLOAD_TOO_LARGE';

  constructor(readonly limitBytes: number) {
    super(`request body exceeds the limit of ${limitBytes} bytes`);
  }
}

/**
 * A path or query parameter outside its fixed set of values. The issue has the shape of the
 * router's request issues, so a client reads `details.issues` the same way from every app.
 */
export class InvalidParamError extends MeshError {
  readonly code = 'INVALID_ARGUMENT';
  readonly issues: readonly ParamIssue[];

  constructor(param: string, allowed: readonly string[], got: unknown) {
    const issue = { path: fieldPath([param]), message: oneOfMessage(allowed, got) };
    super(`${issue.path}: ${issue.message}`);
    this.issues = [issue];
  }
}

/**
 * Fastify refuses an over-limit body before any handler runs, with a message that does not
 * say the limit; this is the same refusal naming the limit that applied to the request's route.
 */
export function payloadTooLargeOf(
  err: unknown,
  request: FastifyRequest,
): PayloadTooLargeError | undefined {
  if (!isBodyTooLarge(err)) return undefined;
  return new PayloadTooLargeError(request.routeOptions.bodyLimit);
}

/**
 * Fastify's own error, or the HttpException of status 413 Nest wraps it in when Nest's body
 * parser read the body (nothing else in the apps answers 413 through Nest).
 */
function isBodyTooLarge(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || err instanceof MeshError) return false;
  const e = err as { code?: unknown; getStatus?: unknown };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return true;
  return typeof e.getStatus === 'function' && (err as { getStatus(): unknown }).getStatus() === 413;
}
