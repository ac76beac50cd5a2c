import type { FastifyInstance } from 'fastify';
import { traceparentOf, tracingEnabled, type Span } from '@mesh/telemetry';
import { endRequestSpan, startRequestSpan } from '../predict/request.trace';
import { startSubmitSpan } from '../jobs/job.trace';
import { traceparentFrom } from './call-context';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while tracing is on (the TRACED routes only). */
    meshSpan?: Span;
  }
}

type SpanStarter = (traceparent: string | undefined, receivedAt: number | undefined) => Span;

/** The HTTP routes (POST) that get a request span, and how it starts: predicts, job submits. */
const TRACED: ReadonlyMap<string, SpanStarter> = new Map<string, SpanStarter>([
  ['/v1/predict', (tp, at) => startRequestSpan('POST /v1/predict', 'http', tp, at)],
  ['/v1/predict:batch', (tp, at) => startRequestSpan('POST /v1/predict:batch', 'http', tp, at)],
  ['/v1/jobs', (tp, at) => startSubmitSpan('http', tp, at)],
]);

/**
 * With tracing on, a predict or job submit gets its server span as it arrives (continuing the caller's
 * `traceparent`), its answer carries the span's own `traceparent`, and the span ends with the
 * status and outcome code once the answer went out: refusals (401, 400, 429) included. Installed
 * after the request-id hook, so the span starts when the request arrived.
 */
export function installTraceHook(fastify: FastifyInstance): void {
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', (request, reply, done) => {
    const start = request.method === 'POST' ? TRACED.get(request.url.split('?')[0]!) : undefined;
    if (start) {
      const span = start(traceparentFrom(request.headers.traceparent), request.meshReceivedAt);
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
