import { modelConfigToProtoJson, type ModelConfig } from '@mesh/model-repository';
import type { ModelVersionRuntime } from '../core/model-version-runtime';
import type { ModelFiles, ModelFilesRepository } from './model-files.repository';
import type { ModelEntry } from './model-index';

/**
 * Which selected versions a load rebuilds, and how the builds replace what serves: a version
 * whose model file and build config are unchanged keeps its warm sessions.
 */

/** The config a version's build depends on: everything but which versions are served. */
const buildConfigKey = (config: ModelConfig): string =>
  JSON.stringify(modelConfigToProtoJson({ ...config, versionPolicy: undefined }));

export interface BuildPlan {
  /** The build key of every selected version. */
  keys: Map<string, string>;
  /** Selected versions not already serving from the same file and build config. */
  toBuild: number[];
}

export interface BuildResult extends BuildPlan {
  fresh: Map<string, ModelVersionRuntime>;
  failed: Map<string, string>;
}

/**
 * Which selected versions to build: those not already serving from the same model file and
 * build config (those keep their warm sessions).
 */
export async function planBuilds(
  repo: Pick<ModelFilesRepository, 'fileStamp' | 'modelFile'>,
  files: ModelFiles,
  entry: ModelEntry,
): Promise<BuildPlan> {
  const configKey = buildConfigKey(files.config);
  const keys = new Map<string, string>();
  const toBuild: number[] = [];
  for (const v of files.versions) {
    const stamp = await repo.fileStamp(repo.modelFile(files, v)).catch(() => 'missing');
    const key = `${stamp}|${configKey}`;
    keys.set(String(v), key);
    const unchanged = entry.serving.has(String(v)) && entry.builtFrom.get(String(v)) === key;
    if (!unchanged) toBuild.push(v);
  }
  return { keys, toBuild };
}

/**
 * Serves the fresh builds next to the unchanged versions. A failed version keeps serving its
 * previous build; versions no longer selected retire (drain in the background) and stay in
 * the index as UNAVAILABLE / `unloaded`, as on Triton. The config shown is the one that built.
 * Returns the retired runtimes.
 */
export function swapIn(
  entry: ModelEntry,
  files: ModelFiles,
  built: BuildResult,
): ModelVersionRuntime[] {
  const { fresh, failed, keys } = built;
  const retired = [...entry.serving.entries()].filter(([v]) => fresh.has(v) || !keys.has(v));
  for (const [v, rt] of retired) {
    entry.serving.delete(v);
    entry.builtFrom.delete(v);
    void rt.drain();
    if (!keys.has(v)) entry.unavailable.set(v, 'unloaded');
  }
  for (const [v, rt] of fresh) {
    entry.serving.set(v, rt);
    entry.builtFrom.set(v, keys.get(v) ?? '');
    entry.unavailable.delete(v);
  }
  for (const [v, reason] of failed) entry.unavailable.set(v, reason);
  const ok = fresh.size > 0 || (failed.size === 0 && entry.serving.size > 0);
  if (ok || !entry.config) entry.config = files.config;
  entry.state = entry.serving.size > 0 ? 'READY' : 'UNAVAILABLE';
  entry.reason = entry.serving.size > 0 ? '' : [...failed.values()].join('; ');
  return retired.map(([, rt]) => rt);
}
