import type { FastifyInstance } from 'fastify';
import { traceparentOf, tracingEnabled, type Span } from '@mesh/telemetry';
import { endRequestSpan, startRequestSpan } from '../core/request.trace';
import { traceparentFrom } from './call-context';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while tracing is on (predict routes only). */
    meshSpan?: Span;
  }
}

/** The HTTP routes that get a request span: the predict calls. */
const TRACED = new Set(['/v1/predict', '/v1/predict:batch']);

/**
 * With tracing on, a predict gets its server span as it arrives (continuing the caller's
 * `traceparent`), its answer carries the span's own `traceparent`, and the span ends with the
 * status and outcome code once the answer went out: refusals (401, 400, 429) included. Installed
 * after the request-id hook, so the span starts when the request arrived.
 */
export function installTraceHook(fastify: FastifyInstance): void {
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'POST' && TRACED.has(request.url.split('?')[0]!)) {
      const path = request.url.split('?')[0]!;
      const span = startRequestSpan(
        `POST ${path}`,
        'http',
        traceparentFrom(request.headers.traceparent),
        request.meshReceivedAt,
      );
      request.meshSpan = span;
      void reply.header('traceparent', traceparentOf(span));
    }
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = request.meshSpan;
    if (span) {
      const status = reply.statusCode;
      endRequestSpan(span, request.meshCall?.served, outcomeOf(status, request.meshErrorCode), {
        'http.response.status_code': status,
        'mesh.request_id': String(request.headers['x-request-id']),
      });
    }
    done();
  });
  // The caller left before its answer: the span still ends, with the outcome the metrics use.
  fastify.addHook('onRequestAbort', (request, done) => {
    const span = request.meshSpan;
    if (span) {
      request.meshSpan = undefined;
      endRequestSpan(span, request.meshCall?.served, 'CLIENT_CLOSED', {
        'mesh.request_id': String(request.headers['x-request-id']),
      });
    }
    done();
  });
}

/** `ok` below 400, else the error body's code (every mesh error has one). */
export function outcomeOf(status: number, code: string | undefined): string {
  if (status < 400) return 'ok';
  return code ?? (status >= 500 ? 'INTERNAL' : `HTTP_${status}`);
}
