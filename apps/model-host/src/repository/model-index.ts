import type { ModelConfig } from '@mesh/model-repository';
import type { ModelVersionRuntime } from '../core/model-version-runtime';

/** What the manager knows of one model, and how the repository index shows it. */

export type ModelState = 'READY' | 'LOADING' | 'UNLOADING' | 'UNAVAILABLE';

/** One row of the repository index (Triton's RepositoryIndexResponse.ModelIndex). */
export interface ModelIndexEntry {
  name: string;
  version: string;
  state: ModelState | '';
  reason: string;
}

export interface ModelEntry {
  config?: ModelConfig;
  serving: Map<string, ModelVersionRuntime>;
  /** What each serving version was built from (model file stamp + config), to skip rebuilds. */
  builtFrom: Map<string, string>;
  /** Versions that failed (or were unloaded) with the reason, for the index. */
  unavailable: Map<string, string>;
  /** A reason for the model as a whole (bad config, unsupported platform, unloaded). */
  reason: string;
  state: ModelState;
}

/**
 * The repository index of `names` (sorted), as Triton lists it: serving versions READY, failed
 * or unloaded ones UNAVAILABLE with their reason, a model never loaded with an empty state, and
 * a model with no version row its own state. `readyOnly` keeps the READY rows.
 */
export function indexRows(
  names: readonly string[],
  models: ReadonlyMap<string, ModelEntry>,
  readyOnly: boolean,
): ModelIndexEntry[] {
  const out: ModelIndexEntry[] = [];
  for (const name of names) {
    const m = models.get(name);
    if (!m) {
      if (!readyOnly) out.push({ name, version: '', state: '', reason: '' });
      continue;
    }
    const rows: ModelIndexEntry[] = [...m.serving.keys()].map((v) => ({
      name,
      version: v,
      state: 'READY',
      reason: '',
    }));
    if (!readyOnly) {
      for (const [v, reason] of m.unavailable) {
        if (!m.serving.has(v)) rows.push({ name, version: v, state: 'UNAVAILABLE', reason });
      }
    }
    out.push(...rows.sort((a, b) => Number(a.version) - Number(b.version)));
    if (readyOnly) continue;
    if (m.serving.size === 0 && m.unavailable.size === 0) {
      out.push({ name, version: '', state: m.state, reason: m.reason });
    }
  }
  return out;
}
