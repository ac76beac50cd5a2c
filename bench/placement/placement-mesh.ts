import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, type BenchProcess } from '../router/bench-processes';

export const TENANT_KEY = 'placement-bench-key';
const ADMIN_KEY = 'placement-bench-admin';

export const taskOf = (model: string): string => `task-${model}`;

/** A routing seed: one task per model, all traffic on `version`. */
export function writeSeed(repo: string, models: readonly string[], version: number): string {
  const sha = createHash('sha256').update(TENANT_KEY).digest('hex');
  const routes = models.map(
    (m) =>
      `  - tenant: '*'\n    task: ${taskOf(m)}\n    model: ${m}\n    versions: [{ version: ${version}, weight: 100 }]`,
  );
  const file = join(repo, 'mesh.yaml');
  writeFileSync(
    file,
    `tenants:
  - name: bench
    keySha256: ['${sha}']
    allowedTasks: [${models.map(taskOf).join(', ')}]
    rateLimit: { requestsPerSecond: 1000000, burst: 1000000 }
    maxInFlight: 4096
routes:
${routes.join('\n')}
`,
  );
  return file;
}

/** `loadAll`: every model loaded at start (`--load-model=*`), as every backend held them before placement. */
export function startHost(
  name: string,
  repo: string,
  budgetMb?: number,
  loadAll = false,
): Promise<BenchProcess> {
  return startProcess(
    name,
    'dist/apps/model-host/src/main.js',
    [
      '--model-repository',
      repo,
      '--model-control-mode=explicit',
      ...(loadAll ? ['--load-model=*'] : []),
    ],
    {
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      // As deployed (deploy/Dockerfile): unloaded sessions' memory goes back to the OS.
      MALLOC_MMAP_THRESHOLD_: '131072',
      ...(budgetMb !== undefined ? { MODEL_HOST_MEMORY_BUDGET_MB: String(budgetMb) } : {}),
    },
    ['http', 'grpc', 'metrics'],
  );
}

export const grpcAddress = (host: BenchProcess): string =>
  host.urls.grpc!.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '');

export interface Arm {
  name: string;
  prefix: string;
  hosts: BenchProcess[];
  coordinator: BenchProcess;
  router: BenchProcess;
  stop(): Promise<void>;
}

/** Hosts (with or without a budget), a coordinator whose leader places, and a router. */
export async function startArm(o: {
  name: string;
  prefix: string;
  repo: string;
  seed: string;
  hosts: number;
  budgetMb?: number;
  /** Every model loaded at start on every host (the arm without placement). */
  loadAll?: boolean;
  minResidencyMs: number;
}): Promise<Arm> {
  const hosts = await Promise.all(
    Array.from({ length: o.hosts }, (_, i) =>
      startHost(`${o.name}-host-${i}`, o.repo, o.budgetMb, o.loadAll),
    ),
  );
  const endpoints = hosts.map(grpcAddress).join(',');
  const coordinator = await startProcess(
    `${o.name}-coordinator`,
    'dist/apps/coordinator/src/main.js',
    [],
    {
      COORDINATOR_PORT: '0',
      COORDINATOR_ID: `${o.name}-coordinator`,
      REDIS_KEY_PREFIX: o.prefix,
      ADMIN_API_KEY: ADMIN_KEY,
      MODEL_REPOSITORY: o.repo,
      KSERVE_ENDPOINTS: endpoints,
      COORDINATOR_RECONCILE_MS: '1000',
      PLACEMENT_MIN_RESIDENCY_MS: String(o.minResidencyMs),
    },
    ['http'],
  );
  const router = await startProcess(
    `${o.name}-router`,
    'dist/apps/router/src/main.js',
    [],
    {
      ROUTER_HTTP_PORT: '0',
      ROUTER_GRPC_PORT: '0',
      ROUTER_ID: `${o.name}-router`,
      REDIS_KEY_PREFIX: o.prefix,
      MODEL_REPOSITORY: o.repo,
      KSERVE_ENDPOINTS: endpoints,
      MESH_CONFIG: o.seed,
      ADMIN_API_KEY: ADMIN_KEY,
      KSERVE_HEALTH_INTERVAL_MS: '500',
    },
    ['http', 'grpc'],
  );
  return {
    name: o.name,
    prefix: o.prefix,
    hosts,
    coordinator,
    router,
    stop: async () => {
      await Promise.all([router, coordinator, ...hosts].map((p) => p.stop()));
    },
  };
}
