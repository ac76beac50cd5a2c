import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in OTLP/HTTP collector for benchmarks: answers every export 200 after reading its
 * body, and keeps only counts (exports and bytes), so what it costs the machine is a socket
 * read per export rather than a collector's decoding and storage.
 */
export class OtlpSink {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** Exports answered and bytes read so far. */
    readonly seen: { exports: number; bytes: number },
  ) {}

  static async start(): Promise<OtlpSink> {
    const seen = { exports: 0, bytes: 0 };
    const server = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => {
        seen.bytes += chunk.length;
      });
      req.on('end', () => {
        seen.exports++;
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return new OtlpSink(server, `http://127.0.0.1:${port}`, seen);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
