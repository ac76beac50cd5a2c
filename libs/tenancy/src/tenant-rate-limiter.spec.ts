import { rateLimitWindow } from './tenant-rate-limiter';

describe('rateLimitWindow', () => {
  it.each([
    [
      { requestsPerSecond: 10, burst: 10 },
      { points: 10, durationSeconds: 1 },
    ],
    [
      { requestsPerSecond: 10, burst: 20 },
      { points: 20, durationSeconds: 2 },
    ],
    [
      { requestsPerSecond: 3, burst: 10 },
      { points: 10, durationSeconds: 4 },
    ],
    [
      { requestsPerSecond: 0.5, burst: 1 },
      { points: 1, durationSeconds: 2 },
    ],
  ])('%j → burst points per whole-second window averaging at most the rate', (limit, window) => {
    const computed = rateLimitWindow(limit);
    expect(computed).toEqual(window);
    // The window's average admission rate (points over its configured length) never exceeds
    // the limit: arithmetic on the computed window, nothing is timed.
    expect(computed.points).toBeLessThanOrEqual(limit.requestsPerSecond * computed.durationSeconds);
  });
});
