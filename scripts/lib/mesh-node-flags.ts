import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a checkout lists the node flags its apps run with (see ADR 0021). */
export const MESH_NODE_FLAGS_FILE = join('scripts', 'lib', 'mesh-node-flags.json');

/**
 * The node flags the mesh apps of the checkout at `root` run with: every launcher (`npm run up`,
 * the `start:*` scripts, the image, the manifests, the tests and benchmarks) puts them before
 * `dist/apps/<app>/src/main.js`. A checkout from before the file existed ran its apps with none,
 * so a benchmark's baseline build starts as it was launched then.
 */
export function meshNodeFlags(root: string): string[] {
  const file = join(root, MESH_NODE_FLAGS_FILE);
  if (!existsSync(file)) return [];
  const flags: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string' && f.startsWith('--'))) {
    throw new Error(
      `${file}: expected a JSON array of node flags ("--name"), got ${String(flags)}`,
    );
  }
  return flags as string[];
}
