import { roundForPeople, roundMetrics } from './rollout-numbers';

describe('roundForPeople', () => {
  it.each([
    [14.149999999999991, 14.1],
    [0.1 + 0.2, 0.3],
    [0.012345, 0.0123],
    [0.00012345, 0.000123],
    [2.3456, 2.35],
    [99.94, 99.9],
    [1234.5, 1235],
    [-14.149999999999991, -14.1],
  ])('rounds %p to %p', (n, expected) => {
    expect(roundForPeople(n)).toBe(expected);
  });

  it('keeps integers, zero and non-finite values as they are', () => {
    for (const n of [0, 7, 100, 123456789, Number.POSITIVE_INFINITY]) {
      expect(roundForPeople(n)).toBe(n);
    }
    expect(roundForPeople(Number.NaN)).toBeNaN();
  });
});

describe('roundMetrics', () => {
  it('rounds the numbers of a timeline entry and keeps strings, booleans and nulls', () => {
    expect(
      roundMetrics({
        p99Ms: 14.149999999999991,
        requests: 1200,
        errorRate: 0.0123456,
        baselineP99Ms: null,
        gate: 'maxP99Ms',
        passed: true,
      }),
    ).toEqual({
      p99Ms: 14.1,
      requests: 1200,
      errorRate: 0.0123,
      baselineP99Ms: null,
      gate: 'maxP99Ms',
      passed: true,
    });
  });
});
