import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { meshNodeFlags } from '../../scripts/lib/mesh-node-flags';

// How a mesh app's process is started, apart from Jest's hooks in app-process.ts, so that the
// benchmarks' launchers (the chaos cluster) can use it outside a test run.

export const ROOT = join(__dirname, '..', '..');

export type AppName = 'router' | 'model-host' | 'batch-worker' | 'coordinator';

export function mainOf(app: AppName): string {
  const main = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  return main;
}

/** `node`'s arguments that start `app` as its launchers do: the mesh's node flags, then its main. */
export function appArgv(app: AppName): string[] {
  return [...meshNodeFlags(ROOT), mainOf(app)];
}
