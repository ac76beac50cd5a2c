import pino, { type Logger, type LevelWithSilent } from 'pino';

/** Structured JSON logs on stdout, one line per event, tagged with the service name. */
export function createLogger(service: string, level: LevelWithSilent = 'info'): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

export type { Logger };
