import { histogramQuantile, latencyBucket, LATENCY_BOUNDS_MS } from './latency-histogram';

function counts(entries: Record<number, number>): number[] {
  const out = new Array<number>(LATENCY_BOUNDS_MS.length).fill(0);
  for (const [i, n] of Object.entries(entries)) out[Number(i)] = n;
  return out;
}

describe('latency histogram', () => {
  it('puts a latency in the first bucket whose bound is at least it', () => {
    expect(latencyBucket(0.2)).toBe(0);
    expect(latencyBucket(1)).toBe(0);
    expect(latencyBucket(1.5)).toBe(1);
    expect(LATENCY_BOUNDS_MS[latencyBucket(42)]).toBe(50);
    expect(latencyBucket(1e9)).toBe(LATENCY_BOUNDS_MS.length - 1);
  });

  it('interpolates a quantile inside its bucket like histogram_quantile', () => {
    // 10 observations in (10, 15] ms: the median is halfway through the bucket.
    const c = counts({ [latencyBucket(12)]: 10 });
    expect(histogramQuantile(0.5, c)).toBeCloseTo(12.5);
    expect(histogramQuantile(1, c)).toBeCloseTo(15);
  });

  it('p99 lands in the slow bucket when 2 % of requests are slow', () => {
    const c = counts({ [latencyBucket(4)]: 98, [latencyBucket(400)]: 2 });
    expect(histogramQuantile(0.5, c)!).toBeLessThanOrEqual(5);
    // Rank 99 of 100 is the first of the 2 observations in (300, 500] ms: halfway through it.
    expect(histogramQuantile(0.99, c)).toBeCloseTo(400);
  });

  it('answers null without observations and the last finite bound for +Inf', () => {
    expect(histogramQuantile(0.5, counts({}))).toBeNull();
    expect(histogramQuantile(0.5, counts({ [LATENCY_BOUNDS_MS.length - 1]: 3 }))).toBe(10_000);
  });
});
