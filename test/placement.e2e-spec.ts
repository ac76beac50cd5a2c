import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { PlacementKeys, type BackendLedger } from '@mesh/placement';
import { writeModelCopies } from '../scripts/models/model-copies';
import { ndjsonOf, results, startWorker, submitNdjson, waitForState } from './support/bulk-jobs';
import { call } from './support/router-mesh';
import { freePort, startCoordinator, startHost, startRouter } from './support/rollout-mesh';
import { ROOT, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

/**
 * Many models on a memory budget, every part a real process: two model hosts in explicit mode
 * whose budgets hold a third of twelve models, a router, a batch worker and a coordinator whose
 * leader places versions. Nothing here measures time: waits poll state with generous deadlines.
 */
jest.setTimeout(300_000);

const MODELS = Array.from({ length: 12 }, (_, i) => `place-${String(i + 1).padStart(2, '0')}`);
const taskOf = (model: string) => model.replace('place-', 'task-');
/** Declared footprint per version; each host's budget holds four of them. */
const FOOTPRINT_MB = 100;
const BUDGET_MB = 4 * FOOTPRINT_MB;
const TENANT_KEY = 'placement-e2e-key';

const prefix = uniquePrefix(__filename);
const ledgerKey = new PlacementKeys(prefix).ledger();
let repo: string;
let redis: RedisClient;
const hosts: StartedApp[] = [];
/** `host:port` of each host, as the coordinator names it in the ledger. */
const addresses: string[] = [];
let router: StartedApp;
let worker: StartedApp;
let coordinator: StartedApp;
/** Every ledger entry above its budget seen while the suite ran. */
const overBudget: string[] = [];
let watching = true;
let watcher: Promise<void>;

function writeSeed(dir: string): string {
  const seed = join(dir, 'mesh.yaml');
  const sha = createHash('sha256').update(TENANT_KEY).digest('hex');
  const routes = MODELS.map(
    (m) =>
      `  - tenant: '*'\n    task: ${taskOf(m)}\n    model: ${m}\n    versions: [{ version: 1, weight: 100 }]`,
  );
  writeFileSync(
    seed,
    `tenants:
  - name: placement
    keySha256: ['${sha}']
    allowedTasks: [${MODELS.map(taskOf).join(', ')}]
    rateLimit: { requestsPerSecond: 100000, burst: 100000 }
    maxInFlight: 512
routes:
${routes.join('\n')}
`,
  );
  return seed;
}

/** A host in explicit mode that loads nothing at start: the placer fills it. */
function startBudgetedHost(grpcPort: number): Promise<StartedApp> {
  return startHost(repo, grpcPort, false, { MODEL_HOST_MEMORY_BUDGET_MB: String(BUDGET_MB) });
}

async function ledgers(): Promise<BackendLedger[]> {
  const raw = await redis.hgetall(ledgerKey);
  return Object.values(raw).map((j) => JSON.parse(j) as BackendLedger);
}

/** Models resident on some backend the placer knows, per its ledger. */
async function residentModels(): Promise<Set<string>> {
  return new Set((await ledgers()).flatMap((l) => l.resident.map((r) => r.model)));
}

async function watchLedger(): Promise<void> {
  while (watching) {
    for (const l of await ledgers().catch(() => [])) {
      if (l.budgetMb !== null && l.usedMb > l.budgetMb) {
        overBudget.push(`${l.backend}: ${l.usedMb} MB > ${l.budgetMb} MB`);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Zipf(s = 1.1) over the twelve models, from a fixed seed: the same sequence every run. */
function zipfSequence(n: number): string[] {
  const weights = MODELS.map((_, k) => 1 / Math.pow(k + 1, 1.1));
  const total = weights.reduce((a, b) => a + b, 0);
  let state = 42;
  const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * total;
  return Array.from({ length: n }, () => {
    let x = next();
    for (let k = 0; k < MODELS.length; k++) {
      x -= weights[k]!;
      if (x <= 0) return MODELS[k]!;
    }
    return MODELS[MODELS.length - 1]!;
  });
}

async function predict(model: string, i: number): Promise<{ status: number; body: unknown }> {
  return call(router.urls.http!, 'POST', '/v1/predict', {
    key: TENANT_KEY,
    body: { task: taskOf(model), text: `placement request ${i}` },
  });
}

/** Sends `models` in order with `concurrency` requests at a time; returns every non-200. */
async function drive(models: string[], concurrency: number): Promise<string[]> {
  const failed: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < models.length) {
        const i = next++;
        const r = await predict(models[i]!, i);
        if (r.status !== 200) failed.push(`${models[i]}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }),
  );
  return failed;
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'placement-e2e-'));
  writeModelCopies({
    source: join(ROOT, 'model_repository', 'sentiment-en'),
    outDir: repo,
    names: MODELS,
    memoryMb: FOOTPRINT_MB,
  });
  const seed = writeSeed(repo);
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'placement-e2e',
  });
  const ports = [await freePort(), await freePort()];
  hosts.push(...(await Promise.all(ports.map((p) => startBudgetedHost(p)))));
  addresses.push(...ports.map((p) => `127.0.0.1:${p}`));
  const backends = addresses.join(',');
  coordinator = await startCoordinator('placer', prefix, repo, backends, {
    PLACEMENT_MIN_RESIDENCY_MS: '3000',
  });
  router = await startRouter('placement-router', prefix, repo, seed, backends);
  worker = await startWorker({
    REDIS_KEY_PREFIX: prefix,
    MODEL_REPOSITORY: repo,
    KSERVE_ENDPOINTS: backends,
  });
  watcher = watchLedger();
});

afterAll(async () => {
  if (process.env.PLACEMENT_E2E_LOGS) {
    const { writeFileSync: w } = await import('node:fs');
    w('/tmp/placement-router.log', router.logs.join('\n'));
    w('/tmp/placement-coordinator.log', coordinator.logs.join('\n'));
    w('/tmp/placement-worker.log', worker.logs.join('\n'));
    w('/tmp/placement-hosts.log', hosts.flatMap((h) => h.logs).join('\n'));
  }
  watching = false;
  await watcher;
  await Promise.all([coordinator, router, worker, ...hosts].map((a) => a?.stop('SIGKILL')));
  rmSync(repo, { recursive: true, force: true });
  const stale = await redis.keys(`${prefix}*`);
  if (stale.length > 0) await redis.del(...stale);
  await closeRedis(redis);
});

describe('twelve models on two hosts whose budgets hold a third of them', () => {
  it('answers every request of Zipf traffic (cold ones after a wait) within every budget', async () => {
    const failed = await drive(zipfSequence(360), 6);
    expect(failed).toEqual([]);
    expect(overBudget).toEqual([]);
    const all = await ledgers();
    expect(all.map((l) => l.budgetMb)).toEqual([BUDGET_MB, BUDGET_MB]);
    // Twelve models were asked for; at most eight fit, so some were evicted on the way.
    expect(all.reduce((n, l) => n + l.resident.length, 0)).toBeLessThanOrEqual(8);
  });

  it('keeps the hottest models resident', async () => {
    // The placer's next passes see the traffic that just ran; the two hottest stay.
    const resident = await pollUntil(
      async () => {
        const r = await residentModels();
        return r.has(MODELS[0]!) && r.has(MODELS[1]!) ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the two hottest models resident' },
    );
    expect(resident.has(MODELS[0]!)).toBe(true);
  });

  it('runs a bulk job on a cold model exactly once', async () => {
    const resident = await residentModels();
    const cold = [...MODELS].reverse().find((m) => !resident.has(m));
    expect(cold).toBeDefined();
    const submitted = await submitNdjson(
      router.urls.http!,
      TENANT_KEY,
      taskOf(cold!),
      ndjsonOf(40),
    );
    expect(submitted.status).toBe(202);
    const id = submitted.body.jobId as string;
    const done = await waitForState(
      router.urls.http!,
      TENANT_KEY,
      id,
      ['completed', 'failed'],
      180_000,
    );
    expect(done.state).toBe('completed');
    const lines = await results(router.urls.http!, TENANT_KEY, id);
    expect(lines).toHaveLength(40);
    expect(new Set(lines.map((l: { id: string }) => l.id)).size).toBe(40);
    expect(lines.every((l: { error?: unknown }) => l.error === undefined)).toBe(true);
    expect(overBudget).toEqual([]);
  });

  it('serves the hot models from the other host once one host is killed', async () => {
    const hot = MODELS.slice(0, 3);
    await hosts[0]!.stop('SIGKILL');
    const keptAddress = addresses[1]!;
    const failed = await drive(
      Array.from({ length: 60 }, (_, i) => hot[i % hot.length]!),
      4,
    );
    expect(failed).toEqual([]);
    await pollUntil(
      async () => {
        const l = (await ledgers()).find((x) => x.backend === keptAddress);
        const there = new Set(l?.resident.map((r) => r.model));
        return hot.every((m) => there.has(m)) ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the hot models resident on the host left' },
    );
    expect(overBudget).toEqual([]);
  });
});
