import { signals } from '../testing/fake-mesh';
import { RolloutGate } from './rollout-gate';

describe('RolloutGate reasons', () => {
  it('names the measured p99 rounded for people', () => {
    const gate = new RolloutGate({ maxP99Ms: 10 });
    const fresh = signals({ requests: 50, p99Ms: 14.149999999999991 });
    const result = gate.evaluate(fresh, undefined, true);
    expect(result.verdict).toBe('fail');
    expect(result.reason).toBe('gate maxP99Ms failed: p99 14.1 ms > 10 ms');
  });

  it('rounds the ratio and both p99s of the ratio gate', () => {
    const gate = new RolloutGate({ maxP99Ratio: 1.2 });
    const result = gate.evaluate(
      signals({ requests: 50, p99Ms: 24.849999999999998 }),
      signals({ requests: 500, p99Ms: 20.049999999999997 }),
      true,
    );
    expect(result.reason).toBe(
      "gate maxP99Ratio failed: p99 24.8 ms is 1.24× the old version's 20 ms (limit 1.2×)",
    );
  });

  it('rounds the error rate of the error-rate gate', () => {
    const gate = new RolloutGate({ maxErrorRate: 0.01 });
    const result = gate.evaluate(
      signals({ requests: 300, errors: 7, errorRate: 7 / 300 }),
      undefined,
      true,
    );
    expect(result.reason).toBe('gate maxErrorRate failed: error rate 0.0233 > 0.01');
  });
});
