import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends a long-lived stream on the raw response with its headers flushed at once, so a client
 * sees 200 before the first piece exists (a job that has not started yet, a view that has not
 * changed). The request id is echoed as on every other answer.
 */
export function streamRaw(
  req: FastifyRequest,
  reply: FastifyReply,
  headers: Record<string, string>,
  source: AsyncIterable<string>,
): void {
  reply.hijack();
  const requestId = req.headers['x-request-id'];
  reply.raw.writeHead(200, {
    ...headers,
    ...(typeof requestId === 'string' ? { 'x-request-id': requestId } : {}),
  });
  reply.raw.flushHeaders();
  pipeline(Readable.from(source), reply.raw).catch(() => undefined);
}
