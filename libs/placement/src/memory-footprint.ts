/**
 * A version's memory footprint lives in its model's config.pbtxt as a per-version parameter,
 * `memory_mb_v<N>`, beside `model_sha256_v<N>`: `mesh model add` writes it from a measured
 * load, and the embedded host reports max(declared, measured) in its ModelConfig answer.
 */
export function memoryParamName(version: number): string {
  return `memory_mb_v${version}`;
}

/** The budget a backend advertises in ServerMetadata `extensions` (`memory_budget_mb=<N>`). */
export const MEMORY_BUDGET_EXTENSION = 'memory_budget_mb=';

/** A positive MB number, or undefined for anything else (empty, zero, negative, not a number). */
export function parseMemoryMb(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The budget a ServerMetadata `extensions` list advertises; undefined when none. */
export function budgetFromExtensions(extensions: readonly string[]): number | undefined {
  const entry = extensions.find((e) => e.startsWith(MEMORY_BUDGET_EXTENSION));
  return entry === undefined
    ? undefined
    : parseMemoryMb(entry.slice(MEMORY_BUDGET_EXTENSION.length));
}
