import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const METRIC = /\b(?:mesh|nv)_[a-z0-9_]+\b/g;
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

/**
 * Names of the Prometheus metrics the mesh's code registers (`mesh_*` and the model host's
 * Triton-compatible `nv_inference_*`), read from the string literals of apps/ and libs/
 * (tests excluded).
 */
export function exportedMetricNames(dirs: readonly string[] = ['apps', 'libs']): Set<string> {
  const names = new Set<string>();
  for (const dir of dirs)
    for (const file of sourceFiles(join(ROOT, dir)))
      for (const m of readFileSync(file, 'utf8').matchAll(/'((?:mesh|nv)_[a-z0-9_]+)'/g))
        names.add(m[1] as string);
  return names;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory())
      return e.name === 'node_modules' || e.name === 'testing' ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(e.name) ? [full] : [];
  });
}

/** `mesh_*` / `nv_*` names used in a query or dashboard text. */
export function referencedMetricNames(text: string): Set<string> {
  return new Set(text.match(METRIC) ?? []);
}

/** Referenced names no code exports (a histogram's _bucket/_sum/_count count as its name). */
export function unknownMetricNames(
  referenced: Iterable<string>,
  exported: ReadonlySet<string>,
): string[] {
  return [...referenced]
    .filter((n) => !exported.has(n) && !exported.has(n.replace(HISTOGRAM_SERIES, '')))
    .sort();
}
