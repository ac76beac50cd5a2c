import { Writable } from 'node:stream';
import pino from 'pino';
import { AccessLog } from '../access-log';

/** The access log as the router writes it (every line sampled), its JSON lines parsed back. */
export function accessLines() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n'))
        if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const out = pino({ formatters: { level: (label) => ({ level: label }) } }, sink);
  return { log: new AccessLog(out, 1, () => 0, out), lines };
}
