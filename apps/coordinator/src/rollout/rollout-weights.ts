import type { VersionWeight } from '@mesh/routing';

/**
 * The route's versions at a canary weight: the new version gets `percent`, the old versions
 * share the rest in their original proportions (kept listed at 0 until the drain).
 */
export function weightsAt(
  from: readonly VersionWeight[],
  toVersion: number,
  percent: number,
): VersionWeight[] {
  const old = from.filter((v) => v.version !== toVersion);
  const oldTotal = old.reduce((sum, v) => sum + v.weight, 0);
  const rest = 100 - percent;
  const scaled = old.map((v) => ({
    version: v.version,
    weight: oldTotal > 0 ? round2((v.weight / oldTotal) * rest) : 0,
  }));
  return [...scaled, { version: toVersion, weight: percent }].sort((a, b) => a.version - b.version);
}

/** Same versions with the same weights, in any order. */
export function sameWeights(a: readonly VersionWeight[], b: readonly VersionWeight[]): boolean {
  if (a.length !== b.length) return false;
  const key = (list: readonly VersionWeight[]) =>
    [...list]
      .sort((x, y) => x.version - y.version)
      .map((v) => `${v.version}:${v.weight}`)
      .join(',');
  return key(a) === key(b);
}

/** The old version that carried the most traffic: the gates' baseline. */
export function baselineVersion(
  from: readonly VersionWeight[],
  toVersion: number,
): number | undefined {
  const old = from.filter((v) => v.version !== toVersion && v.weight > 0);
  old.sort((a, b) => b.weight - a.weight);
  return old[0]?.version;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
