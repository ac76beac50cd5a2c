import type { FastifyInstance } from 'fastify';

/**
 * Every request body reaches the handlers as raw bytes, whatever its content type (or none):
 * an inference body may be JSON followed by binary tensor data, and Triton's HTTP client sends
 * such bodies without a Content-Type. Handlers parse the JSON part themselves.
 */
export function installRawBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}
