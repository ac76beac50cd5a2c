import type { Logger } from 'pino';
import { SampledAccessLog } from './access-log';

interface Entry {
  requestId: string;
  model: string;
  status: number;
  failed: boolean;
  latencyMs: number;
}

function capture(sampleRate: number, draws: number[]) {
  const lines: object[] = [];
  const levels: string[] = [];
  const at = (level: string) => (obj: object) => {
    levels.push(level);
    lines.push(obj);
  };
  const out = { info: at('info'), debug: at('debug') } as unknown as Logger;
  let i = 0;
  const log = new SampledAccessLog<Entry>(out, sampleRate, () => draws[i++ % draws.length]!, out);
  const debugLog = new DebugAccessLog(out, sampleRate, () => draws[i++ % draws.length]!, out);
  return { log, debugLog, lines, levels };
}

class DebugAccessLog extends SampledAccessLog<Entry> {
  protected override readonly level = 'debug';
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

  it('writes at info, or at the level a subclass names', () => {
    const { log, debugLog, levels } = capture(1, [0]);
    log.record(ok);
    debugLog.record(ok);
    expect(levels).toEqual(['info', 'debug']);
  });
});
