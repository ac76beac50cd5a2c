import { Agent, request } from 'node:http';

/**
 * The load generator's HTTP client: node:http over keep-alive sockets. It costs the generator
 * about half the CPU of global fetch (undici) per request, and that CPU sits on the critical
 * path of every HTTP arm alike while sharing the cores with the servers being measured.
 */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });

/** POSTs a JSON body and resolves once the whole answer is read; non-200 rejects. */
export async function postJson(url: string, body: string, key?: string): Promise<void> {
  const { status } = await send(url, body, key, false);
  if (status !== 200) throw new Error(`HTTP ${status}`);
}

/** POSTs a JSON body and resolves with the status and the answer's text, whatever the status. */
export function postJsonForAnswer(
  url: string,
  body: string,
  key?: string,
): Promise<{ status: number; text: string }> {
  return send(url, body, key, true);
}

function send(
  url: string,
  body: string,
  key: string | undefined,
  keepText: boolean,
): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
      },
      (res) => {
        let text = '';
        if (keepText) res.setEncoding('utf8');
        // The router arms only need the status: the bytes are read and dropped.
        res.on('data', (c: string) => {
          if (keepText) text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
