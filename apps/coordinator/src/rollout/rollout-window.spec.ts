import { RolloutWindow } from './rollout-window';

describe('RolloutWindow', () => {
  const window = new RolloutWindow({
    cron: '30 2 * * *',
    timezone: 'Asia/Shanghai',
    durationMinutes: 90,
  });

  it.each([
    ['2026-12-01T18:29:59Z', false],
    ['2026-12-01T18:30:00Z', true], // 02:30 in Shanghai, the firing itself
    ['2026-12-01T19:59:59Z', true],
    ['2026-12-01T20:00:00Z', false], // 90 minutes later
    ['2026-12-02T03:00:00Z', false],
  ])('at %s open=%s', (iso, open) => {
    expect(window.isOpen(Date.parse(iso))).toBe(open);
  });

  it('names the next opening in the plan time zone', () => {
    expect(new Date(window.nextOpening(Date.parse('2026-12-01T20:00:00Z'))).toISOString()).toBe(
      '2026-12-02T18:30:00.000Z',
    );
  });

  it('reports unparsable crons and zones, each even when the other is wrong too', () => {
    const paths = (spec: { cron?: string; timezone?: string }) =>
      RolloutWindow.problems(spec).map((i) => i.path);
    expect(paths({ cron: 'nope', timezone: 'UTC' })).toEqual(['window.cron']);
    expect(paths({ cron: '* * * * *', timezone: 'Nowhere/City' })).toEqual(['window.timezone']);
    expect(paths({ cron: '61 * * * *', timezone: 'Nowhere/City' })).toEqual([
      'window.timezone',
      'window.cron',
    ]);
    expect(paths({ timezone: 'Nowhere/City' })).toEqual(['window.timezone']);
    expect(paths({ cron: '*/5 1-3 * * 1-5', timezone: 'Europe/Berlin' })).toEqual([]);
  });
});
