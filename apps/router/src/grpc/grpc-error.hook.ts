import { Metadata } from '@grpc/grpc-js';
import { Catch, Inject, type RpcExceptionFilter } from '@nestjs/common';
import type { Logger } from 'pino';
import { throwError, type Observable } from 'rxjs';
import { describeError, type ErrorView } from '../errors/error-view';
import type { PredictStreamErrorMsg } from './predict-stream';
import { LOGGER } from '../router-tokens';

/** What grpc-js sends back for a failed call. */
export interface GrpcErrorResponse {
  code: number;
  details: string;
  metadata: Metadata;
}

/**
 * Maps every error leaving a gRPC handler through the same table as HTTP: the status code
 * from the table, the message as status details, and the mesh code (plus retry-after and
 * JSON details) in trailing metadata. A refusal that says when to come back also carries
 * `grpc-retry-pushback-ms`, the key gRPC's own retry policy reads: without it a grpc-js or
 * grpc-go client configured to retry RESOURCE_EXHAUSTED resends at once, adding load exactly
 * when the router asked for less.
 */
@Catch()
export class GrpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(err: unknown): Observable<never> {
    return throwError(() => toGrpcError(err, this.logger));
  }
}

export function toGrpcError(err: unknown, logger?: Logger): GrpcErrorResponse {
  const view = describeError(err);
  if (view.serverFault) logger?.error({ err }, view.message);
  const metadata = new Metadata();
  metadata.set('x-mesh-error-code', view.code);
  if (view.retryAfterSeconds !== undefined) {
    metadata.set('retry-after', String(view.retryAfterSeconds));
    metadata.set('grpc-retry-pushback-ms', String(retryAfterMsOf(view)));
  }
  if (view.details) metadata.set('x-mesh-error-details', JSON.stringify(view.details));
  return { code: view.mapping.grpc, details: view.message, metadata };
}

/** The same mapping for a request that failed on a stream: an error message, not a status. */
export function toStreamError(err: unknown, logger?: Logger): PredictStreamErrorMsg {
  const view = describeError(err);
  if (view.serverFault) logger?.error({ err }, view.message);
  const retryAfterMs = retryAfterMsOf(view) ?? 0;
  return {
    code: view.mapping.grpc,
    meshCode: view.code,
    message: view.message,
    retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
    detailsJson: view.details ? JSON.stringify(view.details) : '',
  };
}

/** When a refusal says to retry, in milliseconds: exact when the error knows it (rate limits). */
function retryAfterMsOf(view: ErrorView): number | undefined {
  if (view.retryAfterSeconds === undefined) return undefined;
  return view.retryAfterMs ?? view.retryAfterSeconds * 1000;
}
