import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { requestIdFrom } from './call-context';

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request arrived, for queue time and latencyMs. */
    meshReceivedAt?: number;
  }
}

/**
 * Gives every HTTP request an id before anything else runs (taken from `x-request-id` when
 * well-formed, generated otherwise) and echoes it on every response, errors included.
 */
export function installRequestIdHook(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    request.meshReceivedAt = performance.now();
    const id = requestIdFrom(request.headers['x-request-id']);
    request.headers['x-request-id'] = id;
    void reply.header('x-request-id', id);
    done();
  });
}
