import { Agent, request } from 'node:http';

/**
 * The load generator's HTTP client: node:http over keep-alive sockets. It costs the generator
 * about half the CPU of global fetch (undici) per request, and that CPU sits on the critical
 * path of every HTTP arm alike while sharing the cores with the servers being measured.
 */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });

/** POSTs a JSON body and resolves once the whole answer is read; non-200 rejects. */
export function postJson(url: string, body: string, key?: string): Promise<void> {
  const u = new URL(url);
  return new Promise<void>((resolve, reject) => {
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
        res.on('data', () => undefined);
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
