import type { Logger } from 'pino';
import { HostAccessLog, requestIdOf } from './host-access-log';

function capture() {
  const lines: [string, object][] = [];
  const at = (level: string) => (obj: object) => lines.push([level, obj]);
  const out = { info: at('info'), debug: at('debug') } as unknown as Logger;
  return { log: new HostAccessLog(out, 1, () => 0, out), lines };
}

const call = {
  requestId: 'r-1',
  transport: 'grpc' as const,
  method: 'ModelInfer',
  model: 'intent-zh',
  version: '',
};

describe('HostAccessLog', () => {
  it('records a call at debug (the router logs the request at info) with the version that answered', async () => {
    const { log, lines } = capture();
    await log.around(call, () => Promise.resolve({ version: '2' }));
    expect(lines).toEqual([
      [
        'debug',
        expect.objectContaining({ event: 'access', requestId: 'r-1', version: '2', status: 0 }),
      ],
    ]);
  });

  it('records a failed call at debug too', async () => {
    const { log, lines } = capture();
    await expect(log.around(call, () => Promise.reject(new Error('boom')))).rejects.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[0]).toBe('debug');
    expect(lines[0]?.[1]).toMatchObject({ failed: true, requestId: 'r-1' });
  });

  it("logs under the caller's x-request-id, else the request's own id", () => {
    expect(requestIdOf('from-router', 'own')).toBe('from-router');
    expect(requestIdOf(undefined, 'own')).toBe('own');
    expect(requestIdOf('', undefined)).toBe('');
  });
});
