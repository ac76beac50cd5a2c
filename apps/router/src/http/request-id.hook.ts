import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { errorCodeOf, traceIdOf, type AccessLog } from '../access-log';
import type { CallContext } from '../predict/predict-commands';
import { abortedOnClose, requestIdFrom } from './call-context';

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request arrived, for queue time and latencyMs. */
    meshReceivedAt?: number;
    /** The call's context once a handler built it (tenant, task, model, version served). */
    meshCall?: CallContext;
    /** Aborts when the connection closes before the answer was written (the caller left). */
    meshSignal?: AbortSignal;
    /** The `code` of the error body this request was answered with. */
    meshErrorCode?: string;
  }
}

/**
 * Gives every HTTP request an id before anything else runs (taken from `x-request-id` when
 * well-formed, generated otherwise) and echoes it on every response, errors included.
 */
export function installRequestIdHook(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    request.meshReceivedAt = performance.now();
    request.meshSignal = abortedOnClose(reply.raw);
    const id = requestIdFrom(request.headers['x-request-id']);
    request.headers['x-request-id'] = id;
    void reply.header('x-request-id', id);
    done();
  });
}

/** One access-log line per API request (`/v1/...`), after the answer went out. */
export function installAccessLogHook(fastify: FastifyInstance, log: AccessLog): void {
  // Every error leaves as `{"error":{"code":...}}` whichever path wrote it (filter, Fastify's
  // own handler, a guard): reading the code off the body is the one place that sees them all.
  // Successful bodies are never parsed.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && request.url.startsWith('/v1/')) {
      request.meshErrorCode = errorCodeOf(payload);
    }
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.url.startsWith('/v1/')) {
      const status = reply.statusCode;
      const code = request.meshErrorCode;
      // With tracing on, the request's own trace (new when the caller sent none).
      const traceId =
        request.meshSpan?.spanContext().traceId ?? traceIdOf(request.headers.traceparent);
      log.record({
        requestId: String(request.headers['x-request-id']),
        transport: 'http',
        method: request.method,
        route: request.routeOptions.url ?? request.url.split('?')[0],
        ...request.meshCall?.served,
        status,
        failed: status >= 400,
        ...(code !== undefined ? { code } : {}),
        ...(traceId !== undefined ? { traceId } : {}),
        latencyMs: Math.round((performance.now() - (request.meshReceivedAt ?? 0)) * 1000) / 1000,
      });
    }
    done();
  });
}
