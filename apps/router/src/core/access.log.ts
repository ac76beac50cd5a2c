import type { OnApplicationShutdown } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** One line per request, written when the answer has been sent. */
export interface AccessEntry {
  requestId: string;
  transport: 'http' | 'grpc';
  /** HTTP `METHOD /path` or the gRPC method name. */
  method: string;
  tenant?: string;
  task?: string;
  model?: string;
  version?: number;
  /** HTTP status, or the gRPC status code. */
  status: number;
  /** True when the answer is an error (4xx/5xx, non-OK gRPC). */
  failed: boolean;
  latencyMs: number;
}

/**
 * The access log: one JSON line per request (`event: "access"`) with the request id, tenant,
 * task, model, version, status and latency. Successful requests are sampled at
 * `ROUTER_ACCESS_LOG_SAMPLE` (errors are always written), and lines go through an
 * asynchronous destination so logging never blocks a response on stdout.
 */
export class AccessLog implements OnApplicationShutdown {
  private readonly out: Logger;
  private readonly destination?: ReturnType<typeof pino.destination>;

  constructor(
    base: Logger,
    private readonly sampleRate: number,
    private readonly random: () => number = Math.random,
    out?: Logger,
  ) {
    if (out) {
      this.out = out;
      return;
    }
    this.destination = pino.destination({ dest: 1, sync: false });
    this.out = pino(
      {
        base: base.bindings(),
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      this.destination,
    );
  }

  record(entry: AccessEntry): void {
    if (!entry.failed && (this.sampleRate <= 0 || this.random() >= this.sampleRate)) return;
    this.out.info({ event: 'access', ...entry }, 'request');
  }

  /** Writes what is still buffered before the process exits. */
  onApplicationShutdown(): void {
    this.destination?.flushSync();
  }
}
