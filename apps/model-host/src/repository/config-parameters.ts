import type { ModelConfig } from '@mesh/model-repository';
import { ModelLoadError } from './model-load.errors';

/**
 * The host's readers of config.pbtxt `parameters` (string values, as Triton's ORT backend reads
 * them). A value they cannot read fails the load, naming the parameter, rather than being
 * ignored as Triton would: a typo must not quietly leave a model on the default.
 */

/** A `"0"`/`"1"`/`"false"`/`"true"` parameter, else `fallback`. */
export function flagParameter(config: ModelConfig, name: string, fallback: boolean): boolean {
  const raw = config.parameters[name]?.stringValue;
  if (raw === undefined) return fallback;
  if (!['0', '1', 'false', 'true'].includes(raw)) {
    throw new ModelLoadError(`parameter '${name}' must be one of 0, 1, false, true (got "${raw}")`);
  }
  return raw === '1' || raw === 'true';
}

/** An integer >= 0 (thread and instance counts, token budgets, milliseconds), else undefined. */
export function nonNegativeIntParameter(config: ModelConfig, name: string): number | undefined {
  const raw = config.parameters[name]?.stringValue;
  if (raw === undefined) return undefined;
  // Number('') is 0: an empty value is a mistake, not a zero.
  const n = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ModelLoadError(`parameter '${name}' must be an integer >= 0 (got "${raw}")`);
  }
  return n;
}
