import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PredictMethod, RouterMetrics } from '../router.metrics';
import type { ClientErrorListener } from './client-error.hook';
import { outcomeOf } from './trace.hook';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the request is in `mesh_router_requests_total`, so it is never counted twice. */
    meshCounted?: boolean;
  }
}

/** The predict API's paths and the `method` label each counts under (as over gRPC). */
const COUNTED: ReadonlyMap<string, PredictMethod> = new Map([
  ['/v1/predict', 'predict'],
  ['/v1/predict:batch', 'predict_batch'],
  ['/v1/tokenize', 'tokenize'],
]);

/**
 * The `method` label of a request to the predict API, whatever its HTTP method (a GET on
 * /v1/predict is a 405 of `predict`); undefined for every other path, so a scanner's made-up
 * paths never become label values.
 */
export function countedMethodOf(url: string): PredictMethod | undefined {
  return COUNTED.get(url.split('?')[0]!);
}

/**
 * Counts every answer of the predict API in `mesh_router_requests_total`, at the one point
 * every HTTP answer passes whichever path wrote it: the handler, the error filter, or Fastify
 * itself before any handler ran (401, 400 bad JSON or schema, 413, 415, 405). The outcome is
 * the error body's code (read by the access-log hook's onSend), CLIENT_CLOSED for a caller
 * that left before its answer; labels are what the request got to (`ctx.served`).
 */
export function installRequestCountHook(fastify: FastifyInstance, metrics: RouterMetrics): void {
  const count = (request: FastifyRequest, outcome: string) => {
    const method = countedMethodOf(request.url);
    if (method === undefined || request.meshCounted) return;
    request.meshCounted = true;
    metrics.answered({
      transport: 'http',
      method,
      served: request.meshCall?.served,
      outcome,
    });
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    count(request, outcomeOf(reply.statusCode, request.meshErrorCode));
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    count(request, 'CLIENT_CLOSED');
    done();
  });
}

/**
 * Counts the requests Node refused before Fastify saw them (headers over the limit, bad
 * framing) when their request line names a predict API path; nothing else is known of them.
 */
export function countClientErrors(metrics: RouterMetrics): ClientErrorListener {
  return (path, code) => {
    const method = path === undefined ? undefined : countedMethodOf(path);
    if (method !== undefined) {
      metrics.answered({ transport: 'http', method, served: undefined, outcome: code });
    }
  };
}
