import type { TransitionMetrics } from './rollout.types';

/**
 * A measured number as people read it: three significant digits, never fewer than the
 * integer part (p99 14.149999999999991 → 14.1 ms, an error rate of 0.012345 → 0.0123,
 * 1234.5 ms → 1235 ms); integers stay as they are. Float noise from sums and quantiles is
 * dropped where the number is recorded or sent, so every reader (API, dashboard, CLI) shows
 * the same value. Decisions (gates) compare the measured value, never this one.
 */
export function roundForPeople(n: number): number {
  if (!Number.isFinite(n) || Number.isInteger(n)) return n;
  if (Math.abs(n) >= 100) return Math.round(n);
  return Number(n.toPrecision(3));
}

/** Every number of a timeline entry's metrics rounded for people; other values as they are. */
export function roundMetrics(metrics: TransitionMetrics): TransitionMetrics {
  return Object.fromEntries(
    Object.entries(metrics).map(([k, v]) => [k, typeof v === 'number' ? roundForPeople(v) : v]),
  );
}
