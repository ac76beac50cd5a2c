import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { describeError, errorBody } from '../errors/error-view';
import {
  HeadersTooLargeError,
  MalformedHttpRequestError,
  RequestTimeoutError,
} from '../errors/router.errors';

/** Node's client errors that are not malformed bytes. */
const CLIENT_ERRORS: Readonly<Record<string, () => Error>> = {
  HPE_HEADER_OVERFLOW: () => new HeadersTooLargeError(),
  // A slow client (slow headers or a trickled body) cut off by the request/headers timeout.
  ERR_HTTP_REQUEST_TIMEOUT: () => new RequestTimeoutError(),
};

/**
 * Answers HTTP requests Node could not even parse (headers over the limit, bad framing) in
 * the router's error shape; Fastify's default writes its own `{statusCode, error, message}`.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = err.code === undefined ? undefined : CLIENT_ERRORS[err.code];
  const view = describeError(known ? known() : new MalformedHttpRequestError());
  const status = view.mapping.http;
  const body = JSON.stringify(errorBody(view));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
