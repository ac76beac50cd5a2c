import type { VersionPolicy } from './model-config.types';

/** What Triton serves when a config has no version_policy: the single highest version. */
export const DEFAULT_VERSION_POLICY: VersionPolicy = Object.freeze({
  latest: Object.freeze({ numVersions: 1 }),
});

/**
 * The versions a policy selects from those available on disk, ascending. A `specific` version
 * that is not on disk is simply not selected; `missingVersions` names those.
 */
export function selectVersions(
  policy: VersionPolicy | undefined,
  available: readonly number[],
): number[] {
  const versions = [...new Set(available)].sort((a, b) => a - b);
  const effective = policy ?? DEFAULT_VERSION_POLICY;
  if ('all' in effective) return versions;
  if ('specific' in effective) {
    const wanted = new Set(effective.specific.versions);
    return versions.filter((v) => wanted.has(v));
  }
  return versions.slice(Math.max(0, versions.length - effective.latest.numVersions));
}

/** Versions a `specific` policy asks for that are not on disk (Triton reports them as errors). */
export function missingVersions(
  policy: VersionPolicy | undefined,
  available: readonly number[],
): number[] {
  if (!policy || !('specific' in policy)) return [];
  const onDisk = new Set(available);
  return [...new Set(policy.specific.versions)].filter((v) => !onDisk.has(v)).sort((a, b) => a - b);
}
