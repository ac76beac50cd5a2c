import { freePort } from './support/free-port';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRedis, createRedis } from '@mesh/config';
import { uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  ndjsonOf,
  resultProblems,
  results,
  startWorker,
  submitNdjson,
  waitForProgress,
  waitForState,
} from './support/bulk-jobs';
import { ACME_KEY, hostPort, startMesh, type Mesh } from './support/router-mesh';

/**
 * A Redis of this test's own (AOF, fsync on every write) is killed while a job runs and
 * restarted on the same port and directory: the router and the workers ride out the outage
 * (ioredis reconnects, BullMQ resumes) and the job completes with every item exactly once.
 */
jest.setTimeout(600_000);

// Its keys live on the Redis this file starts and kills: nothing of them outlives the file.
const prefix = uniquePrefix(__filename, undefined, { ownServer: true });
const dir = mkdtempSync(join(tmpdir(), 'bulk-redis-restart-'));
let port: number;
let redisProc: ChildProcess | undefined;
let mesh: Mesh | undefined;
const workers: StartedApp[] = [];

/** One PING on a throwaway connection that never retries: true when Redis answers. */
async function pings(): Promise<boolean> {
  const probe = createRedis('probe', { url: `redis://127.0.0.1:${port}`, name: 'e2e-probe' });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    await closeRedis(probe);
  }
}

async function startRedis(): Promise<void> {
  redisProc = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--logfile',
      join(dir, 'redis.log'),
    ],
    { stdio: 'ignore' },
  );
  await pollUntil(async () => ((await pings()) ? true : undefined), {
    timeoutMs: 30_000,
    what: `redis-server on port ${port}`,
  });
}

async function killRedis(): Promise<void> {
  const proc = redisProc;
  redisProc = undefined;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

const ready = async (base: string): Promise<number> => {
  try {
    return (await fetch(`${base}/healthz/ready`, { signal: AbortSignal.timeout(10_000) })).status;
  } catch {
    return 0;
  }
};

beforeAll(async () => {
  port = await freePort();
  await startRedis();
  const redisUrl = `redis://127.0.0.1:${port}`;
  mesh = await startMesh(prefix, {
    routerEnv: { REDIS_URL: redisUrl, JOBS_CHUNK_SIZE: '250' },
  });
  const env = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
    WORKER_CONCURRENCY: '1',
  };
  workers.push(...(await Promise.all([startWorker(env), startWorker(env)])));
}, 180_000);

afterAll(async () => {
  await killRedis();
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await mesh?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Redis restart in the middle of a bulk job', () => {
  it('completes the job with every index exactly once, in order, on the pinned version', async () => {
    const { http } = mesh!;
    const total = 10_000;
    const submitted = await submitNdjson(http, ACME_KEY, 'intent', ndjsonOf(total));
    expect(submitted.status).toBe(202);
    const job = submitted.body;
    const before = await waitForProgress(http, ACME_KEY, job.jobId, 1000, 300_000);
    expect(before.processed).toBeLessThan(total);

    await killRedis();
    expect(await pings()).toBe(false);
    // Every app notices the outage and stays up. The workers turn unready; the router reports
    // it but stays ready, since it still predicts from its cached routing table.
    for (const base of workers.map((w) => w.urls.http!)) {
      await pollUntil(async () => ((await ready(base)) !== 200 ? true : undefined), {
        timeoutMs: 60_000,
        what: `${base} to report Redis unreachable`,
      });
    }
    await pollUntil(
      async () => {
        const res = await fetch(`${http}/healthz/ready`, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as { checks: { redis: { detail?: string } } };
        return res.status === 200 && body.checks.redis.detail?.includes('Redis unreachable')
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, what: 'the router to report Redis unreachable while staying ready' },
    );

    await startRedis();
    for (const base of [http, ...workers.map((w) => w.urls.http!)]) {
      await pollUntil(async () => ((await ready(base)) === 200 ? true : undefined), {
        timeoutMs: 60_000,
        what: `${base} to be ready again`,
      });
    }
    const done = await waitForState(http, ACME_KEY, job.jobId, ['completed', 'failed'], 400_000);
    expect(done).toMatchObject({
      state: 'completed',
      total,
      processed: total,
      succeeded: total,
      failedItems: 0,
      version: job.version,
    });
    expect(resultProblems(await results(http, ACME_KEY, job.jobId), total, job)).toEqual([]);
    for (const app of [mesh!.router, mesh!.host, ...workers]) {
      expect([app.name, app.proc.exitCode]).toEqual([app.name, null]);
    }
  });
});
