import { connect } from 'node:net';

export interface RawHttpRequest {
  method: string;
  path: string;
  /** Sent as written: values may hold bytes that Node's own clients refuse to send. */
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * One HTTP/1.1 exchange on its own connection (`Connection: close`), written byte for byte:
 * fetch and node:http validate header values and framing, which a fuzzer must not be
 * limited by. Reads until the server closes, then parses the first response.
 */
export function rawHttp(
  base: string,
  req: RawHttpRequest,
  timeoutMs = 15_000,
): Promise<RawHttpResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // The server may answer and close before the whole body is written (413): keep the answer.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err: unknown) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    const body = req.body ?? Buffer.alloc(0);
    const head = [
      `${req.method} ${req.path} HTTP/1.1`,
      `host: ${url.host}`,
      'connection: close',
      ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
      `content-length: ${body.length}`,
      '',
      '',
    ].join('\r\n');
    socket.write(Buffer.from(head, 'latin1'));
    // No half-close: Node's HTTP server takes a client's FIN as "the caller left".
    socket.write(body);
  });
}

function parseResponse(raw: Buffer): RawHttpResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`connection closed without a full response (${raw.length} bytes)`);
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${lines[0] ?? ''}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}
