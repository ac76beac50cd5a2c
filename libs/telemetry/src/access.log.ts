import type { OnApplicationShutdown } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/**
 * An access log: one JSON line per request (`event: "access"`) with the fields of `E` (request
 * id, status, latency, ...). Successful requests are sampled at `sampleRate` (failures are always
 * written), and lines go through an asynchronous destination so logging never blocks a response
 * on stdout. Each app declares its entry type and subclasses this (the subclass is its DI token).
 */
export class SampledAccessLog<E extends { failed: boolean }> implements OnApplicationShutdown {
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

  record(entry: E): void {
    if (!entry.failed && (this.sampleRate <= 0 || this.random() >= this.sampleRate)) return;
    const line: Record<string, unknown> = { event: 'access', ...entry };
    this.out.info(line, 'request');
  }

  /** Writes what is still buffered before the process exits. */
  onApplicationShutdown(): void {
    this.destination?.flushSync();
  }
}
