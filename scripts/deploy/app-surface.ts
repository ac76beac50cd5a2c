import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadBatchWorkerConfig,
  loadCoordinatorConfig,
  loadModelHostConfig,
  loadRouterConfig,
} from '@mesh/app-config';

/** What one of the mesh's apps listens on, read from its own code. */
export interface AppSurface {
  app: MeshApp;
  /** Validates the container's environment with the app's own config loader; returns the HTTP port. */
  httpPort(env: NodeJS.ProcessEnv, argv: readonly string[]): number;
  /** GET paths its HTTP listener serves (`:param` segments match anything). */
  httpGetPaths: readonly string[];
}

export type MeshApp = 'router' | 'model-host' | 'batch-worker' | 'coordinator';

const ROOT = join(__dirname, '..', '..');

/**
 * NVIDIA Triton's HTTP GET endpoints the manifests may probe (KServe v2 health, server
 * metadata) and its metrics path on the metrics port. The embedded model host serves the same
 * KServe paths, which a test checks against its controller.
 */
export const TRITON_HTTP_GET_PATHS = ['/v2/health/live', '/v2/health/ready', '/v2'] as const;
export const TRITON_METRICS_PATH = '/metrics';

/** Every GET route of the Nest controllers in `dirs` (directories or controller files) (`@Controller('p')` + `@Get(...)`). */
export function controllerGetPaths(dirs: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const dir of dirs) {
    for (const file of listTs(join(ROOT, dir))) {
      const src = readFileSync(file, 'utf8');
      const prefix = /@Controller\(\s*'([^']*)'\s*\)/.exec(src)?.[1] ?? '';
      for (const m of src.matchAll(/@Get\(\s*(\[[^\]]*\]|'[^']*')?\s*\)/g)) {
        const arg = m[1] ?? "''";
        for (const p of arg.matchAll(/'([^']*)'/g))
          paths.add(`/${[prefix, p[1]].filter((s) => s).join('/')}`.replace(/\/+$/, '') || '/');
      }
    }
  }
  return [...paths].sort();
}

function listTs(dir: string): string[] {
  if (dir.endsWith('.controller.ts')) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return listTs(full);
    return e.name.endsWith('.controller.ts') ? [full] : [];
  });
}

/** Does `path` match one of the served routes (with `:param` segments)? */
export function servesPath(served: readonly string[], path: string): boolean {
  const clean = path.split('?')[0] ?? path;
  return served.some((route) => {
    const a = route.split('/');
    const b = clean.split('/');
    return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
  });
}

let surfaces: Record<MeshApp, AppSurface> | undefined;

/** The apps' surfaces, from their controllers and config loaders. */
export function appSurfaces(): Record<MeshApp, AppSurface> {
  // Every Nest app mounts the health controller; all but the model host (metrics on its own
  // port, 8002, as Triton) also mount the metrics controller.
  const health = 'libs/telemetry/src/health.controller.ts';
  const shared = [health, 'libs/telemetry/src/metrics.controller.ts'];
  surfaces ??= {
    router: {
      app: 'router',
      httpPort: (env) => loadRouterConfig(env).ROUTER_HTTP_PORT,
      httpGetPaths: controllerGetPaths([...shared, 'apps/router/src']),
    },
    'model-host': {
      app: 'model-host',
      httpPort: (env, argv) => loadModelHostConfig(env, argv).MODEL_HOST_HTTP_PORT,
      httpGetPaths: controllerGetPaths([health, 'apps/model-host/src']),
    },
    'batch-worker': {
      app: 'batch-worker',
      httpPort: (env) => loadBatchWorkerConfig(env).WORKER_PORT,
      httpGetPaths: controllerGetPaths([...shared, 'apps/batch-worker/src']),
    },
    coordinator: {
      app: 'coordinator',
      httpPort: (env) => loadCoordinatorConfig(env).COORDINATOR_PORT,
      httpGetPaths: controllerGetPaths([...shared, 'apps/coordinator/src']),
    },
  };
  return surfaces;
}

/** Which mesh app a container runs, from its command (`node dist/apps/<app>/src/main.js`). */
export function meshAppOf(command: readonly string[]): MeshApp | undefined {
  const m = /dist\/apps\/([a-z-]+)\/src\/main\.js$/.exec(
    command.find((c) => c.includes('dist/apps/')) ?? '',
  );
  const app = m?.[1];
  return app === 'router' || app === 'model-host' || app === 'batch-worker' || app === 'coordinator'
    ? app
    : undefined;
}
