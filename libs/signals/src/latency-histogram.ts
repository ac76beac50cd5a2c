/** Upper bounds (ms) of the latency buckets the routers aggregate; the last one is +Inf. */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  1,
  2,
  3,
  5,
  7,
  10,
  15,
  20,
  30,
  50,
  75,
  100,
  150,
  200,
  300,
  500,
  750,
  1000,
  1500,
  2000,
  3000,
  5000,
  10_000,
  Number.POSITIVE_INFINITY,
];

/** Index of the first bucket whose upper bound is ≥ ms. */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length - 1;
}

/**
 * Quantile q of a bucketed histogram (counts per LATENCY_BOUNDS_MS index), interpolated
 * linearly inside the bucket as Prometheus' histogram_quantile does; a quantile in the +Inf
 * bucket answers the last finite bound. Null without observations.
 */
export function histogramQuantile(q: number, counts: readonly number[]): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) {
    const n = counts[i] ?? 0;
    if (n > 0 && seen + n >= rank) {
      const upper = LATENCY_BOUNDS_MS[i]!;
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      if (!Number.isFinite(upper)) return lower;
      return lower + (upper - lower) * ((rank - seen) / n);
    }
    seen += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 2]!;
}
