/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON and grpc-js dynamic clients are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createRedis, closeRedis } from '@mesh/config';
import { CHUNK_QUEUE, bullPrefix } from '@mesh/jobs';
import { Queue } from 'bullmq';
import { join } from 'node:path';
import { ROOT, startApp, type StartedApp } from './app-process';
import { pollUntil } from './poll';

/** Short lock and stall intervals, so a killed worker's chunk comes back within seconds. */
export const FAST_WORKER_ENV = {
  WORKER_LOCK_MS: '2000',
  WORKER_STALLED_INTERVAL_MS: '1000',
  WORKER_VERSION_WAIT_MS: '300',
  KSERVE_HEALTH_INTERVAL_MS: '200',
  JOBS_BACKOFF_MS: '200',
};

export function startWorker(env: Record<string, string>): Promise<StartedApp> {
  return startApp(
    'batch-worker',
    { WORKER_PORT: '0', ...FAST_WORKER_ENV, ...env },
    { timeoutMs: 60_000 },
  );
}

/** Distinct short texts (CJK + ASCII), deterministic per index. */
export function textOf(i: number): string {
  const cjk = String.fromCodePoint(0x4e00 + ((i * 7919) % 20000), 0x4e00 + ((i * 104729) % 20000));
  return `${cjk}问题 ${i % 97} 是什么`;
}

export function ndjsonOf(
  count: number,
  line: (i: number) => object = (i) => ({ id: `i${i}`, text: textOf(i) }),
): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(JSON.stringify(line(i)));
  return `${parts.join('\n')}\n`;
}

export async function submitNdjson(
  base: string,
  key: string,
  task: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/v1/jobs?task=${encodeURIComponent(task)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${key}`, ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}

export async function jobStatus(base: string, key: string, id: string): Promise<any> {
  const res = await fetch(`${base}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return res.json();
}

export function waitForState(
  base: string,
  key: string,
  id: string,
  states: string[],
  timeoutMs = 120_000,
): Promise<any> {
  return pollUntil(
    async () => {
      const s = await jobStatus(base, key, id);
      return states.includes(s.state) ? s : undefined;
    },
    { timeoutMs, intervalMs: 250, what: `job ${id} to reach ${states.join('/')}` },
  );
}

export function waitForProgress(
  base: string,
  key: string,
  id: string,
  processed: number,
  timeoutMs = 120_000,
): Promise<any> {
  return pollUntil(
    async () => {
      const s = await jobStatus(base, key, id);
      return s.processed >= processed ? s : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `job ${id} to process ${processed} items` },
  );
}

/** The whole results stream, parsed line by line. */
export async function results(
  base: string,
  key: string,
  id: string,
  from?: number,
): Promise<any[]> {
  const q = from === undefined ? '' : `?from=${from}`;
  const res = await fetch(`${base}/v1/jobs/${id}/results${q}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`results: HTTP ${res.status}: ${await res.text()}`);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

/** A raw grpc-js client of mesh.v1.Jobs built from proto/. */
export function jobsClient(address: string): any {
  const def = protoLoader.loadSync(join(ROOT, 'proto', 'mesh', 'v1', 'jobs.proto'), {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as any;
  return new pkg.mesh.v1.Jobs(address, grpc.credentials.createInsecure());
}

export function bearer(key: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${key}`);
  return md;
}

/**
 * Lines of `results` that break "every index exactly once, in input order, on the pinned
 * version, a prediction": empty when the job's results are whole.
 */
export function resultProblems(
  lines: readonly any[],
  total: number,
  pin: { model: string; version: number; pipeline: string },
  idOf: (i: number) => string | undefined = (i) => `i${i}`,
): string[] {
  const problems: string[] = [];
  if (lines.length !== total) problems.push(`${lines.length} lines for ${total} items`);
  lines.forEach((l, i) => {
    const wrong =
      l.index !== i ||
      l.id !== idOf(i) ||
      l.model !== pin.model ||
      l.version !== pin.version ||
      l.pipeline !== pin.pipeline ||
      typeof l.label !== 'string';
    if (wrong && problems.length < 4) problems.push(`line ${i}: ${JSON.stringify(l)}`);
  });
  return problems;
}

/** The BullMQ job counts of the chunk queue of a key prefix (active, waiting, delayed …). */
export async function chunkQueueCounts(
  redisUrl: string,
  prefix: string,
): Promise<Record<string, number>> {
  const connection = createRedis('commands', { url: redisUrl, name: 'e2e-queue-counts' });
  const queue = new Queue(CHUNK_QUEUE, { prefix: bullPrefix(prefix), connection });
  try {
    return await queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed', 'failed');
  } finally {
    await queue.close();
    await closeRedis(connection);
  }
}
