import type { FastifyInstance } from 'fastify';
import { endSpan, traceparentOf, tracingEnabled, type Span } from '@mesh/telemetry';
import { traceparentFrom } from '../http/call-context';
import { outcomeOf } from '../http/trace.hook';
import { startSubmitSpan } from './job.trace';

declare module 'fastify' {
  interface FastifyRequest {
    /** The job submit's server span while tracing is on (`POST /v1/jobs` only). */
    meshJobSpan?: Span;
  }
}

/**
 * With tracing on, `POST /v1/jobs` gets its server span as it arrives (continuing the caller's
 * `traceparent`), the answer carries the span's `traceparent`, and the span ends with the status
 * and outcome code once the answer went out, refusals included. The predict routes have their
 * own hook (http/trace.hook.ts); this one is installed after the request-id hook too, so the
 * span starts when the request arrived.
 */
export function installJobTraceHook(fastify: FastifyInstance): void {
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'POST' && request.url.split('?')[0] === '/v1/jobs') {
      const span = startSubmitSpan(
        'http',
        traceparentFrom(request.headers.traceparent),
        request.meshReceivedAt,
      );
      request.meshJobSpan = span;
      void reply.header('traceparent', traceparentOf(span));
    }
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = request.meshJobSpan;
    if (span) {
      request.meshJobSpan = undefined;
      const status = reply.statusCode;
      span.setAttributes({
        'http.response.status_code': status,
        'mesh.request_id': String(request.headers['x-request-id']),
      });
      endSpan(span, outcomeOf(status, request.meshErrorCode));
    }
    done();
  });
  // The caller left mid-upload: the span still ends, with the outcome the metrics use.
  fastify.addHook('onRequestAbort', (request, done) => {
    const span = request.meshJobSpan;
    if (span) {
      request.meshJobSpan = undefined;
      span.setAttribute('mesh.request_id', String(request.headers['x-request-id']));
      endSpan(span, 'CLIENT_CLOSED');
    }
    done();
  });
}
