import type { VersionWeight } from '@mesh/routing';
import type { RolloutRecord } from './rollout.types';

type Target = Pick<RolloutRecord, 'fromVersions' | 'finalWeights' | 'plan'>;

/** The route's weights once the rollout completes (an undo's, or all on the new version). */
export function finalWeightsOf(r: Target): VersionWeight[] {
  return r.finalWeights?.map((v) => ({ ...v })) ?? [{ version: r.plan.toVersion, weight: 100 }];
}

/** The route's weights at a step of `percent`: part of the way from the old to the final ones. */
export function targetAt(r: Target, percent: number): VersionWeight[] {
  return r.finalWeights
    ? weightsToward(r.fromVersions, r.finalWeights, percent)
    : weightsAt(r.fromVersions, r.plan.toVersion, percent);
}

/** Versions the rollout brings traffic to, which must be loaded before any step. */
export function incomingVersions(r: Target): number[] {
  const set = new Set([r.plan.toVersion]);
  for (const v of r.finalWeights ?? []) if (v.weight > 0) set.add(v.version);
  return [...set].sort((a, b) => a - b);
}

/**
 * `percent` of the way from one set of weights to another, each version's weight moved in
 * proportion; versions on the way out stay listed at 0 until the drain. Rounded to hundredths,
 * with the rounding remainder on the heaviest version so the weights still sum to 100.
 */
export function weightsToward(
  from: readonly VersionWeight[],
  to: readonly VersionWeight[],
  percent: number,
): VersionWeight[] {
  const share = (list: readonly VersionWeight[], version: number) =>
    list.find((v) => v.version === version)?.weight ?? 0;
  const versions = [...new Set([...from, ...to].map((v) => v.version))].sort((a, b) => a - b);
  const out = versions.map((version) => ({
    version,
    weight: round2(
      (share(from, version) * (100 - percent)) / 100 + (share(to, version) * percent) / 100,
    ),
  }));
  const rest = round2(100 - out.reduce((sum, v) => sum + v.weight, 0));
  const heaviest = [...out].sort((a, b) => b.weight - a.weight)[0];
  if (heaviest) heaviest.weight = round2(heaviest.weight + rest);
  return out;
}

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
