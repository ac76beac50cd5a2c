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
 * Told of each request answered here, with its path when the bytes Node read began with a
 * request line (they may not: a timeout has none), so it can be counted like any other answer.
 */
export type ClientErrorListener = (path: string | undefined, code: string) => void;

/** `METHOD /path HTTP/1.x` at the start of the bytes Node failed on. */
const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\/1\.[01]\r?\n/;

/** The path of the request line the failed bytes start with, if they do. */
export function requestPathOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  return REQUEST_LINE.exec(rawPacket.subarray(0, 2048).toString('latin1'))?.[1];
}

/**
 * Answers HTTP requests Node could not even parse (headers over the limit, bad framing) in
 * the router's error shape; Fastify's default writes its own `{statusCode, error, message}`.
 */
export function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
  answered?: ClientErrorListener,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = err.code === undefined ? undefined : CLIENT_ERRORS[err.code];
  const view = describeError(known ? known() : new MalformedHttpRequestError());
  answered?.(requestPathOf(err.rawPacket), view.code);
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
