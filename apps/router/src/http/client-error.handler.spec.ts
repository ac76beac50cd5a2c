import type { Socket } from 'node:net';
import { answerClientError } from './client-error.handler';

/** A socket that records what is written to it. */
function fakeSocket(): Socket & { written: string; wasDestroyed: boolean } {
  const s = {
    written: '',
    wasDestroyed: false,
    destroyed: false,
    writable: true,
    write(chunk: string) {
      s.written += chunk;
      return true;
    },
    destroy() {
      s.wasDestroyed = true;
    },
  };
  return s as unknown as Socket & { written: string; wasDestroyed: boolean };
}

const errorOf = (code: string) => Object.assign(new Error(code), { code });

describe('answerClientError', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', '431', 'HEADERS_TOO_LARGE'],
    ['ERR_HTTP_REQUEST_TIMEOUT', '408', 'REQUEST_TIMEOUT'],
    ['HPE_INVALID_METHOD', '400', 'INVALID_ARGUMENT'],
  ])('answers %s with %s %s in the error shape and closes', (code, status, meshCode) => {
    const socket = fakeSocket();
    answerClientError(errorOf(code), socket);
    expect(socket.written.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    const body = JSON.parse(socket.written.slice(socket.written.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string };
    };
    expect(body.error.code).toBe(meshCode);
    expect(socket.wasDestroyed).toBe(true);
  });

  it('writes nothing to a connection the client already reset', () => {
    const socket = fakeSocket();
    answerClientError(errorOf('ECONNRESET'), socket);
    expect(socket.written).toBe('');
  });
});
