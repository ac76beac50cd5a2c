import type { Logger } from 'pino';
import { SampledAccessLog } from './access.log';

interface Entry {
  requestId: string;
  model: string;
  status: number;
  failed: boolean;
  latencyMs: number;
}

function capture(sampleRate: number, draws: number[]) {
  const lines: object[] = [];
  const out = { info: (obj: object) => lines.push(obj) } as unknown as Logger;
  let i = 0;
  const log = new SampledAccessLog<Entry>(out, sampleRate, () => draws[i++ % draws.length]!, out);
  return { log, lines };
}

const ok: Entry = {
  requestId: 'r1',
  model: 'intent-zh',
  status: 200,
  failed: false,
  latencyMs: 3.2,
};

describe('SampledAccessLog', () => {
  it('writes one access line per request with every field at sample rate 1', () => {
    const { log, lines } = capture(1, [0.99]);
    log.record(ok);
    expect(lines).toEqual([{ event: 'access', ...ok }]);
  });

  it('samples successful requests and always writes failures', () => {
    const { log, lines } = capture(0.25, [0.1, 0.3, 0.6, 0.9]);
    for (let i = 0; i < 4; i++) log.record(ok);
    expect(lines).toHaveLength(1);
    log.record({ ...ok, status: 503, failed: true });
    expect(lines).toHaveLength(2);
    const off = capture(0, [0]);
    off.log.record(ok);
    off.log.record({ ...ok, status: 400, failed: true });
    expect(off.lines).toHaveLength(1);
  });
});
