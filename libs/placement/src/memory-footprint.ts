import { parseMemoryMb } from '@mesh/model-repository';

/**
 * The budget a backend advertises. Triton's protocol has no server-level capacity field, so the
 * embedded host lists it among its ServerMetadata `extensions` as `memory_budget_mb=<N>`
 * (a version's footprint is `memory_mb_v<N>` in config.pbtxt: `@mesh/model-repository`).
 */
export const MEMORY_BUDGET_EXTENSION = 'memory_budget_mb=';

/** The budget a ServerMetadata `extensions` list advertises; undefined when none. */
export function budgetFromExtensions(extensions: readonly string[]): number | undefined {
  const entry = extensions.find((e) => e.startsWith(MEMORY_BUDGET_EXTENSION));
  return entry === undefined
    ? undefined
    : parseMemoryMb(entry.slice(MEMORY_BUDGET_EXTENSION.length));
}
