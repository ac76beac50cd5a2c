/**
 * `npm run mesh -- job ...`: bulk jobs through the router's HTTP API.
 *   job submit --task T --file items.ndjson [--idempotency-key K] [--no-wait]
 *   job status ID | job results ID [--from N] > out.ndjson | job cancel ID | job list [--state S]
 * Uses MESH_URL (router, default http://127.0.0.1:8080) and MESH_API_KEY (the tenant's key).
 */
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { SingleBar } from 'cli-progress';

const USAGE =
  'usage: npm run mesh -- job submit --task T --file F [--idempotency-key K] [--no-wait] | ' +
  'status ID | results ID [--from N] | cancel ID | list [--state S]';

interface JobStatus {
  id: string;
  state: string;
  reason?: string;
  total: number;
  processed: number;
  failedItems: number;
  itemsPerSecond: number;
  etaSeconds: number | null;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

class RouterClient {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  async request(method: string, path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      method,
      headers: { authorization: `Bearer ${this.key}`, ...(init.headers ?? {}) },
    });
    if (res.status >= 400) {
      const body = await res.text();
      throw new Error(`${method} ${path}: HTTP ${res.status}: ${body}`);
    }
    return res;
  }

  async json<T>(method: string, path: string, init?: RequestInit): Promise<T> {
    return (await (await this.request(method, path, init)).json()) as T;
  }
}

export async function runJobCommand(args: string[]): Promise<number> {
  const [sub, id] = args;
  const key = process.env.MESH_API_KEY ?? '';
  if (!key) {
    console.error('set MESH_API_KEY to your tenant key (e.g. acme-demo-key locally)');
    return 2;
  }
  const client = new RouterClient(process.env.MESH_URL ?? 'http://127.0.0.1:8080', key);
  switch (sub) {
    case 'submit':
      return submit(client, args);
    case 'status':
      if (!id) break;
      console.log(JSON.stringify(await client.json('GET', `/v1/jobs/${id}`), null, 2));
      return 0;
    case 'results': {
      if (!id) break;
      const from = option(args, '--from');
      const res = await client.request(
        'GET',
        `/v1/jobs/${id}/results${from ? `?from=${from}` : ''}`,
      );
      if (res.body) {
        for await (const chunk of Readable.fromWeb(res.body)) {
          if (!process.stdout.write(chunk as Buffer)) {
            await new Promise((r) => process.stdout.once('drain', r));
          }
        }
      }
      return 0;
    }
    case 'cancel':
      if (!id) break;
      console.log(JSON.stringify(await client.json('DELETE', `/v1/jobs/${id}`), null, 2));
      return 0;
    case 'list': {
      const state = option(args, '--state');
      const { jobs } = await client.json<{ jobs: JobStatus[] }>(
        'GET',
        `/v1/jobs${state ? `?state=${state}` : ''}`,
      );
      for (const j of jobs) {
        console.log(`${j.id}  ${j.state.padEnd(19)} ${j.processed}/${j.total}`);
      }
      return 0;
    }
    default:
      break;
  }
  console.error(USAGE);
  return 2;
}

async function submit(client: RouterClient, args: string[]): Promise<number> {
  const task = option(args, '--task');
  const file = option(args, '--file');
  if (!task || !file) {
    console.error(USAGE);
    return 2;
  }
  const idem = option(args, '--idempotency-key');
  process.stderr.write(`uploading ${file} (${statSync(file).size} bytes)\n`);
  const accepted = await client.json<{
    jobId: string;
    model: string;
    version: number;
    total: number;
  }>('POST', `/v1/jobs?task=${encodeURIComponent(task)}`, {
    headers: {
      'content-type': 'application/x-ndjson',
      ...(idem ? { 'idempotency-key': idem } : {}),
    },
    body: Readable.toWeb(createReadStream(file)),
    duplex: 'half',
  });
  console.log(JSON.stringify(accepted));
  if (args.includes('--no-wait')) return 0;
  const final = await follow(client, accepted.jobId, accepted.total);
  process.stderr.write(
    `job ${final.id}: ${final.state}${final.reason ? ` (${final.reason})` : ''}, ` +
      `${final.processed - final.failedItems} ok, ${final.failedItems} failed\n`,
  );
  return final.state === 'completed' ? 0 : 1;
}

/** A live progress bar (items/s, ETA) until the job ends. */
async function follow(client: RouterClient, id: string, total: number): Promise<JobStatus> {
  const bar = new SingleBar({
    format: '{bar} {percentage}% | {value}/{total} items | {rate} items/s | ETA {eta_s} | {state}',
    hideCursor: true,
    stream: process.stderr,
  });
  bar.start(total, 0, { rate: 0, eta_s: '-', state: 'queued' });
  try {
    for (;;) {
      const s = await client.json<JobStatus>('GET', `/v1/jobs/${id}`);
      bar.update(s.processed, {
        rate: s.itemsPerSecond,
        eta_s: s.etaSeconds === null ? '-' : `${s.etaSeconds}s`,
        state: s.state === 'waiting_for_version' ? `waiting: ${s.reason ?? ''}` : s.state,
      });
      if (['completed', 'failed', 'cancelled'].includes(s.state)) return s;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    bar.stop();
  }
}
