import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { samplesNamed } from '../libs/telemetry/src/testing/prometheus-text';
import { ROOT, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  chunkQueueCounts,
  jobStatus,
  ndjsonOf,
  resultProblems,
  results,
  startWorker,
  submitNdjson,
  waitForProgress,
  waitForState,
} from './support/bulk-jobs';
import {
  ACME_KEY,
  ADMIN_KEY,
  GLOBEX_KEY,
  call,
  hostPort,
  metricSum,
  startMesh,
  type Mesh,
} from './support/router-mesh';

/**
 * The life of a job around its workers and its model: a pinned version that goes away and
 * comes back, fairness between tenants, a worker told to stop, the worker's metrics, and the
 * job CLI. One worker at a time (concurrency 1), so the order of chunks is the queue's.
 */
jest.setTimeout(300_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CHUNK = 200;
const prefix = uniquePrefix(__filename);
let mesh: Mesh;
let redis: RedisClient;
let worker: StartedApp;
const scratch = mkdtempSync(join(tmpdir(), 'bulk-lifecycle-'));

const admin = (method: string, path: string, body?: unknown) =>
  call(mesh.http, method, `/v1/admin${path}`, { key: ADMIN_KEY, body });
const workerEnv = () => ({
  REDIS_URL,
  REDIS_KEY_PREFIX: prefix,
  KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
  WORKER_CONCURRENCY: '1',
});
const scrape = async (w: StartedApp) => (await fetch(`${w.urls.http}/metrics`)).text();
/** The host's repository API: `versions` retires every other version of the model. */
const loadOnHost = async (model: string, versions?: number[]) => {
  const body =
    versions === undefined
      ? {}
      : { parameters: { config: JSON.stringify({ version_policy: { specific: { versions } } }) } };
  const res = await fetch(`${mesh.host.urls.http}/v2/repository/models/${model}/load`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect([model, res.status]).toEqual([model, 200]);
};

beforeAll(async () => {
  mesh = await startMesh(prefix, {
    hostEnv: {
      MODEL_CONTROL_MODE: 'explicit',
      LOAD_MODELS: 'intent-zh,sentiment-en,question-type-zh',
    },
    // No placer runs here: a cold version is answered MODEL_LOADING at once instead of waiting.
    routerEnv: { JOBS_CHUNK_SIZE: String(CHUNK), ROUTER_COLD_START_WAIT_MS: '0' },
  });
  redis = createRedis('commands', { url: REDIS_URL, name: 'bulk-lifecycle-e2e' });
  worker = await startWorker(workerEnv());
}, 180_000);

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await mesh?.stop();
  rmSync(scratch, { recursive: true, force: true });
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await closeRedis(redis);
  }
});

describe('bulk job lifecycle (router, model host in explicit mode, one worker)', () => {
  it('waits for an unroutable pinned version (waiting_for_version, with the reason) and resumes on it, never switching', async () => {
    const routed = await admin('PUT', '/routes', {
      tenant: 'acme',
      task: 'intent',
      model: 'intent-zh',
      versions: [
        { version: 2, weight: 50 },
        { version: 3, weight: 50 },
      ],
    });
    expect(routed.status).toBe(200);
    const total = 4000;
    const submitted = await submitNdjson(mesh.http, ACME_KEY, 'intent', ndjsonOf(total));
    expect(submitted.status).toBe(202);
    const job = submitted.body;
    expect([2, 3]).toContain(job.version);
    const other = job.version === 2 ? 3 : 2;
    await waitForProgress(mesh.http, ACME_KEY, job.jobId, 1);

    // Retire the pinned version on the only host; the other version stays READY.
    await loadOnHost('intent-zh', [other]);
    const waiting = await waitForState(mesh.http, ACME_KEY, job.jobId, ['waiting_for_version']);
    expect(waiting.reason).toContain(`intent-zh v${job.version}`);
    expect(waiting.version).toBe(job.version);
    expect(waiting.processed).toBeLessThan(total);
    // Online traffic keeps both weights (placement: a cold version is not silently replaced):
    // the served version answers, the retired one is MODEL_LOADING (nothing loads it here).
    const seen = new Set<string>();
    await pollUntil(
      async () => {
        const p = await call(mesh.http, 'POST', '/v1/predict', {
          key: ACME_KEY,
          body: { task: 'intent', text: '你好' },
        });
        if (p.status === 200) {
          expect(p.body.version).toBe(other);
          seen.add('served');
        } else {
          expect([p.status, p.body.error?.code]).toEqual([503, 'MODEL_LOADING']);
          seen.add('loading');
        }
        return seen.size === 2 ? true : undefined;
      },
      {
        timeoutMs: 60_000,
        what: 'answers from the served version and MODEL_LOADING for the retired one',
      },
    );
    // The worker's gauges see the pause: the job by state, its chunks parked (delayed).
    await pollUntil(
      async () => {
        const m = await scrape(worker);
        return metricSum(m, 'mesh_worker_jobs', { state: 'waiting_for_version' }) === 1 &&
          metricSum(m, 'mesh_worker_queue_depth', { queue: 'bulk-chunk', state: 'delayed' }) >= 1
          ? true
          : undefined;
      },
      { timeoutMs: 30_000, what: 'the worker metrics to show the parked job' },
    );
    const still = await jobStatus(mesh.http, ACME_KEY, job.jobId);
    expect([still.state, still.version]).toEqual(['waiting_for_version', job.version]);

    await loadOnHost('intent-zh', [2, 3]);
    const done = await waitForState(mesh.http, ACME_KEY, job.jobId, ['completed', 'failed']);
    expect(done).toMatchObject({
      state: 'completed',
      processed: total,
      succeeded: total,
      failedItems: 0,
      version: job.version,
    });
    expect(done.reason).toBeUndefined();
    expect(resultProblems(await results(mesh.http, ACME_KEY, job.jobId), total, job)).toEqual([]);
  });

  it("runs a small job of tenant B to completion while tenant A's earlier large job is still running (ADR 0007)", async () => {
    const large = await submitNdjson(
      mesh.http,
      ACME_KEY,
      'sentiment',
      ndjsonOf(40 * CHUNK, (i) => ({ text: `review ${i} was fine` })),
    );
    expect(large.status).toBe(202);
    const a = large.body.jobId;
    await waitForProgress(mesh.http, ACME_KEY, a, 1);
    const small = await submitNdjson(
      mesh.http,
      GLOBEX_KEY,
      'sentiment',
      ndjsonOf(50, (i) => ({ text: `short ${i}` })),
    );
    expect(small.status).toBe(202);
    const b = await waitForState(mesh.http, GLOBEX_KEY, small.body.jobId, ['completed']);
    const aThen = await jobStatus(mesh.http, ACME_KEY, a);
    expect(aThen.state).toBe('running');
    expect(aThen.processed).toBeLessThan(aThen.total);
    const aDone = await waitForState(mesh.http, ACME_KEY, a, ['completed'], 240_000);
    expect(Date.parse(b.finishedAt)).toBeLessThan(Date.parse(aDone.finishedAt));
    expect(Date.parse(b.createdAt)).toBeGreaterThan(Date.parse(aDone.createdAt));
    expect([b.processed, aDone.processed]).toEqual([50, 40 * CHUNK]);
  });

  it('SIGTERM: the worker finishes its chunk and exits 0; another worker completes the job, every item once', async () => {
    const total = 30 * CHUNK;
    const submitted = await submitNdjson(mesh.http, ACME_KEY, 'sentiment', ndjsonOf(total));
    const id = submitted.body.jobId;
    await waitForProgress(mesh.http, ACME_KEY, id, CHUNK);
    expect(await worker.stop('SIGTERM')).toBe(0);
    // Nothing is left locked by the stopped worker: no chunk waits for a stall check.
    expect((await chunkQueueCounts(REDIS_URL, prefix)).active).toBe(0);
    const between = await jobStatus(mesh.http, ACME_KEY, id);
    expect(between.state).not.toBe('completed');
    expect(between.processed % CHUNK).toBe(0);
    expect(worker.logs.some((l) => l.includes('"level":50'))).toBe(false);

    worker = await startWorker(workerEnv());
    const done = await waitForState(mesh.http, ACME_KEY, id, ['completed', 'failed']);
    expect(done).toMatchObject({ state: 'completed', processed: total, succeeded: total });
    expect(resultProblems(await results(mesh.http, ACME_KEY, id), total, submitted.body)).toEqual(
      [],
    );
  });

  it('exposes jobs by state, queue depth, items/s, chunk durations and item failures by reason on /metrics', async () => {
    const before = await scrape(worker);
    const long = new Set([3, 250, 251, 599]);
    const total = 3 * CHUNK;
    const submitted = await submitNdjson(
      mesh.http,
      ACME_KEY,
      'sentiment',
      ndjsonOf(total, (i) => ({ text: long.has(i) ? 'x'.repeat(20_001) : `fine ${i}` })),
    );
    expect(submitted.status).toBe(202);
    const done = await waitForState(mesh.http, ACME_KEY, submitted.body.jobId, ['completed']);
    expect(done).toMatchObject({ succeeded: total - long.size, failedItems: long.size });
    const after = await scrape(worker);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      metricSum(after, name, labels) - metricSum(before, name, labels);

    expect(delta('mesh_worker_item_failures_total', { reason: 'TEXT_TOO_LONG' })).toBe(long.size);
    expect(delta('mesh_worker_items_total', { outcome: 'ok' })).toBe(total - long.size);
    expect(delta('mesh_worker_items_total', { outcome: 'error' })).toBe(long.size);
    expect(delta('mesh_worker_chunk_duration_seconds_count', { outcome: 'written' })).toBe(3);
    expect(delta('mesh_worker_chunks_total', { outcome: 'written' })).toBe(3);
    expect(delta('mesh_worker_jobs_finished_total', { state: 'completed' })).toBe(1);
    expect(
      samplesNamed(after, 'mesh_worker_chunk_duration_seconds_bucket', { le: '+Inf' }).length,
    ).toBeGreaterThan(0);
    const rates = samplesNamed(after, 'mesh_worker_items_per_second');
    expect(rates.length).toBeGreaterThan(0);
    expect(rates.every((s) => s.value >= 0)).toBe(true);
    // Jobs by state: every job of this mesh, as the admin listing counts them.
    const completed = await admin('GET', '/jobs?state=completed');
    expect(metricSum(after, 'mesh_worker_jobs', { state: 'completed' })).toBe(
      completed.body.jobs.length,
    );
    expect(
      metricSum(after, 'mesh_worker_queue_depth', { queue: 'bulk-chunk', state: 'active' }),
    ).toBe(0);
  });

  it('drives jobs from the CLI: submit (waits), status, results, list, cancel', async () => {
    const file = join(scratch, 'items.ndjson');
    writeFileSync(
      file,
      ndjsonOf(250, (i) => ({ id: `c${i}`, text: `line ${i} is okay` })),
    );
    const submit = await mesh_(['job', 'submit', '--task', 'sentiment', '--file', file]);
    expect(submit.code).toBe(0);
    const accepted = JSON.parse(submit.stdout.trim().split('\n')[0]!);
    expect(accepted).toMatchObject({ model: 'sentiment-en', version: 1, total: 250 });
    expect(submit.stderr).toContain(`job ${accepted.jobId}: completed, 250 ok, 0 failed`);

    const status = await mesh_(['job', 'status', accepted.jobId]);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'completed', processed: 250 });
    const out = await mesh_(['job', 'results', accepted.jobId]);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(resultProblems(lines, 250, accepted, (i) => `c${i}`)).toEqual([]);
    const list = await mesh_(['job', 'list', '--state', 'completed']);
    expect(list.stdout).toMatch(new RegExp(`^${accepted.jobId}\\s+completed\\s+250/250$`, 'm'));

    // With no worker running the job stays queued, so the cancel below always finds it
    // unfinished, however fast this machine would have run it.
    expect(await worker.stop('SIGTERM')).toBe(0);
    const big = join(scratch, 'big.ndjson');
    writeFileSync(big, ndjsonOf(60 * CHUNK));
    const queued = await mesh_([
      'job',
      'submit',
      '--task',
      'sentiment',
      '--file',
      big,
      '--no-wait',
    ]);
    expect(queued.code).toBe(0);
    const bigId = JSON.parse(queued.stdout.trim()).jobId;
    const cancelled = await mesh_(['job', 'cancel', bigId]);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id: bigId, state: 'cancelled' });
    // A worker that starts afterwards runs none of the cancelled job's chunks.
    worker = await startWorker(workerEnv());
    await pollUntil(
      async () => {
        const {
          waiting = 0,
          prioritized = 0,
          active = 0,
        } = await chunkQueueCounts(REDIS_URL, prefix);
        return waiting + prioritized + active === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'the chunk queue to drain' },
    );
    expect(JSON.parse((await mesh_(['job', 'status', bigId])).stdout)).toMatchObject({
      state: 'cancelled',
      processed: 0,
    });

    const missing = await mesh_(['job', 'status', 'no-such-job']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('404');
    expect((await mesh_(['job', 'status'])).code).toBe(2);
  });
});

/** `npm run mesh -- <args>` as a user runs it, against this test's router as acme. */
function mesh_(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn('npm', ['run', '-s', 'mesh', '--', ...args], {
      cwd: ROOT,
      env: { ...process.env, MESH_URL: mesh.http, MESH_API_KEY: ACME_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
