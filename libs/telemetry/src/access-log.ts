import type { OnApplicationShutdown } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** Longest a buffered access line waits before it is written. */
const FLUSH_AFTER_MS = 200;

/**
 * An access log: one JSON line per request (`event: "access"`) with the fields of `E` (request
 * id, status, latency, ...). Successful requests are sampled at `sampleRate` (failures are always
 * written), and lines go through an asynchronous, buffered destination so logging never blocks a
 * response on stdout. Each app declares its entry type and subclasses this (the subclass is its DI token).
 * Lines honour the base logger's level (`LOG_LEVEL`).
 */
export class SampledAccessLog<E extends { failed: boolean }> implements OnApplicationShutdown {
  /**
   * The level lines are written at. A log whose requests another app's access log already
   * records (the model host behind the router) overrides it with `debug`, so at the default
   * level each request prints one line.
   */
  protected readonly level: 'info' | 'debug' = 'info';
  private readonly out: Logger;
  private readonly destination?: ReturnType<typeof pino.destination>;
  private flushTimer?: NodeJS.Timeout;

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
    // Lines are buffered up to 4 KiB (one write per ~15 lines instead of one per line); a
    // one-shot timer, armed only while something is buffered, writes the rest soon after.
    this.destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
    this.out = pino(
      {
        level: base.level,
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
    this.out[this.level](line, 'request');
    if (this.destination && !this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.destination?.flush();
      }, FLUSH_AFTER_MS);
      this.flushTimer.unref();
    }
  }

  /** Writes what is still buffered before the process exits. */
  onApplicationShutdown(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.destination?.flushSync();
  }
}
