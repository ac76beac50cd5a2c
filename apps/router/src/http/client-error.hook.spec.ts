import type { Socket } from 'node:net';
import { answerClientError, requestPathOf } from './client-error.hook';

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

  it('tells the listener the code it answered and the path of the request line, when there is one', () => {
    const told: [string | undefined, string][] = [];
    const overflow = Object.assign(errorOf('HPE_HEADER_OVERFLOW'), {
      rawPacket: Buffer.from('POST /v1/predict?x=1 HTTP/1.1\r\nHost: r\r\nX-Big: aaaa'),
    });
    answerClientError(overflow, fakeSocket(), (path, code) => told.push([path, code]));
    answerClientError(errorOf('ERR_HTTP_REQUEST_TIMEOUT'), fakeSocket(), (path, code) =>
      told.push([path, code]),
    );
    expect(told).toEqual([
      ['/v1/predict?x=1', 'HEADERS_TOO_LARGE'],
      [undefined, 'REQUEST_TIMEOUT'],
    ]);
  });
});

describe('requestPathOf', () => {
  it('reads the path of a request line only', () => {
    expect(requestPathOf(Buffer.from('GET /v1/tokenize HTTP/1.0\r\n'))).toBe('/v1/tokenize');
    expect(requestPathOf(Buffer.from('aaaa: bbbb\r\n'))).toBeUndefined();
    expect(requestPathOf('POST /v1/predict HTTP/1.1\r\n')).toBeUndefined();
    expect(requestPathOf(undefined)).toBeUndefined();
  });
});
