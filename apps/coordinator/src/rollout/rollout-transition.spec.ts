import { T0, rolloutRecord } from '../testing/rollout-fixtures';
import { move } from './rollout-transition';

describe('move (the timeline writer)', () => {
  it('records the metrics of a transition rounded for people', () => {
    const r = rolloutRecord({ state: 'canary', step: 1 });
    move(r, 'rolling_back', T0, 'gate maxP99Ms failed', {
      p99Ms: 14.149999999999991,
      errorRate: 0.012345678,
      requests: 1200,
      baselineP99Ms: null,
      retired: '1',
    });
    expect(r.timeline.at(-1)).toEqual({
      at: new Date(T0).toISOString(),
      from: 'canary',
      to: 'rolling_back',
      step: 1,
      reason: 'gate maxP99Ms failed',
      metrics: {
        p99Ms: 14.1,
        errorRate: 0.0123,
        requests: 1200,
        baselineP99Ms: null,
        retired: '1',
      },
    });
  });

  it('leaves out empty metrics', () => {
    const r = rolloutRecord();
    move(r, 'loading', T0, 'loading version 2 on every backend', {});
    expect(r.timeline.at(-1)).not.toHaveProperty('metrics');
  });
});
