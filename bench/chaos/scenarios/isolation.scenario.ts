import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TASK, hostPort } from '../cluster';
import { runIsolationChecks, type IsolationReport } from '../isolation/isolation.checks';
import type { TenantKey } from '../isolation/isolation.probe';
import { verdict, type ChaosScenario, type Check, type ScenarioResult } from '../scenario';

/**
 * Scenario 8: tenant A against tenant B's routes, jobs and results by every API (HTTP and
 * gRPC), including guessed ids and admin endpoints called with tenant keys. Each tenant first
 * reads its own job and predicts on its own task (controls), so the refusals mean something.
 */

export const TENANT_A: TenantKey = { name: 'iso-a', key: 'iso-a-tenant-key' };
export const TENANT_B: TenantKey = { name: 'iso-b', key: 'iso-b-tenant-key' };
/** Only A may call it, through a route of its own. */
export const ONLY_A_TASK = 'sentiment';

/** A routing seed with the two tenants; returns its path (MESH_CONFIG). */
export function writeIsolationSeed(dir: string): string {
  const sha = (k: string) => createHash('sha256').update(k).digest('hex');
  const path = join(dir, 'isolation-mesh.yaml');
  const limits = 'rateLimit: { requestsPerSecond: 100000, burst: 100000 }\n    maxInFlight: 64';
  writeFileSync(
    path,
    `tenants:
  - name: ${TENANT_A.name}
    keySha256: ['${sha(TENANT_A.key)}']
    allowedTasks: [${TASK}, ${ONLY_A_TASK}]
    ${limits}
  - name: ${TENANT_B.name}
    keySha256: ['${sha(TENANT_B.key)}']
    allowedTasks: [${TASK}]
    ${limits}
routes:
  - tenant: '*'
    task: ${TASK}
    model: question-type-zh
    versions: [{ version: 1, weight: 100 }]
  - tenant: ${TENANT_A.name}
    task: ${ONLY_A_TASK}
    model: sentiment-en
    versions: [{ version: 1, weight: 100 }]
`,
  );
  return path;
}

/** The checks of a running router (HTTP base URL, gRPC address) seeded by writeIsolationSeed. */
export function isolationChecks(http: string, grpc: string, waitForResultsMs: number) {
  return runIsolationChecks({
    http,
    grpc: hostPort(grpc),
    a: TENANT_A,
    b: TENANT_B,
    sharedTask: TASK,
    onlyATask: ONLY_A_TASK,
    waitForResultsMs,
  });
}

/** The report row of an isolation run. */
export function isolationResult(report: IsolationReport): ScenarioResult {
  const checks: Check[] = [
    {
      name: `${report.checks} cross-tenant checks, none let A into B's data (or B into A's)`,
      ok: report.breaches.length === 0 && report.checks > 100,
      detail: report.breaches.slice(0, 8).join(' | '),
    },
    {
      name: "B's job had finished (results stored) when A tried to read them",
      ok: report.resultsExisted,
    },
  ];
  return {
    id: isolationScenario.id,
    title: isolationScenario.title,
    load: `${report.requests} requests by two tenants, HTTP and gRPC`,
    faults: `cross-tenant job ids, ${report.guessedIds} guessed ids, other tenant's task, tenant keys on admin endpoints`,
    requests: {
      sent: report.requests,
      failed: report.breaches.length,
      failedDetail: report.breaches.length > 0 ? { breaches: report.breaches.length } : {},
    },
    dataLost: 0,
    fixes: [],
    figures: {
      checks: report.checks,
      breaches: report.breaches.length,
      guessedIds: report.guessedIds,
    },
    ...verdict(checks),
  };
}

export const isolationScenario: ChaosScenario = {
  id: 'isolation',
  title: 'Tenant isolation across every API',
  async run(ctx) {
    const cluster = ctx.cluster();
    await cluster.startRedis();
    await cluster.startHost();
    const router = await cluster.startRouter({
      env: { MESH_CONFIG: writeIsolationSeed(ctx.tmpDir) },
    });
    await cluster.startWorker();
    const report = await isolationChecks(router.urls.http!, router.urls.grpc!, 30_000);
    ctx.log(`${report.checks} checks, ${report.breaches.length} breaches`);
    return isolationResult(report);
  },
};
