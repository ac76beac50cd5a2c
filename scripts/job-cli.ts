/**
 * `npm run mesh -- job ...`: bulk jobs through the router's HTTP API.
 *   job submit --task T --file items.ndjson [--idempotency-key K] [--no-wait]
 *   job status ID | job results ID [--from N] > out.ndjson | job cancel ID | job list [--state S]
 * Uses MESH_URL (router, default http://127.0.0.1:8080) and MESH_API_KEY (the tenant's key).
 */
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from './cli-args';

export const JOB_USAGE =
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

/** One command line of `mesh job`, read before anything is sent. */
export type JobCommand =
  | { sub: 'submit'; task: string; file: string; idempotencyKey?: string; wait: boolean }
  | { sub: 'status' | 'cancel'; id: string }
  | { sub: 'results'; id: string; from?: string }
  | { sub: 'list'; state?: string };

/**
 * Reads `submit …`, `status ID`, `results ID [--from N]`, `cancel ID` or `list [--state S]`;
 * undefined for another command, a UsageError naming what is wrong with the arguments.
 */
export function parseJobArgs(args: string[]): JobCommand | undefined {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'submit': {
      const { values } = parseCliArgs({
        args: rest,
        options: {
          task: { type: 'string' },
          file: { type: 'string' },
          'idempotency-key': { type: 'string' },
          'no-wait': { type: 'boolean' },
        },
      });
      if (!values.task) throw new UsageError('submit needs --task');
      if (!values.file) throw new UsageError('submit needs --file');
      const idempotencyKey = values['idempotency-key'];
      return {
        sub,
        task: values.task,
        file: values.file,
        ...(idempotencyKey ? { idempotencyKey } : {}),
        wait: !values['no-wait'],
      };
    }
    case 'status':
    case 'cancel':
      return { sub, id: jobId(sub, parseCliArgs({ args: rest, allowPositionals: true })) };
    case 'results': {
      const parsed = parseCliArgs({
        args: rest,
        options: { from: { type: 'string' } },
        allowPositionals: true,
      });
      const from = parsed.values.from;
      return { sub, id: jobId(sub, parsed), ...(from ? { from } : {}) };
    }
    case 'list': {
      const state = parseCliArgs({ args: rest, options: { state: { type: 'string' } } }).values
        .state;
      return { sub, ...(state ? { state } : {}) };
    }
    default:
      return undefined;
  }
}

/** The one job ID a command names. */
function jobId(command: string, { positionals }: { positionals: string[] }): string {
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError(`${command} needs a job ID`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'`);
  return id;
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

/** `mesh job …`; resolves to the exit code (2 for a command line it cannot run). */
export async function runJobCommand(args: string[]): Promise<number> {
  let command: JobCommand | undefined;
  try {
    command = parseJobArgs(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${JOB_USAGE}`);
    return USAGE_EXIT_CODE;
  }
  if (!command) {
    console.error(JOB_USAGE);
    return USAGE_EXIT_CODE;
  }
  const key = process.env.MESH_API_KEY ?? '';
  if (!key) {
    console.error('set MESH_API_KEY to your tenant key (e.g. acme-demo-key locally)');
    return 2;
  }
  const client = new RouterClient(process.env.MESH_URL ?? 'http://127.0.0.1:8080', key);
  switch (command.sub) {
    case 'submit':
      return submit(client, command);
    case 'status':
      console.log(JSON.stringify(await client.json('GET', `/v1/jobs/${command.id}`), null, 2));
      return 0;
    case 'results': {
      const { id, from } = command;
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
      console.log(JSON.stringify(await client.json('DELETE', `/v1/jobs/${command.id}`), null, 2));
      return 0;
    case 'list': {
      const { state } = command;
      const { jobs } = await client.json<{ jobs: JobStatus[] }>(
        'GET',
        `/v1/jobs${state ? `?state=${state}` : ''}`,
      );
      for (const j of jobs) {
        console.log(`${j.id}  ${j.state.padEnd(19)} ${j.processed}/${j.total}`);
      }
      return 0;
    }
  }
}

async function submit(
  client: RouterClient,
  { task, file, idempotencyKey: idem, wait }: Extract<JobCommand, { sub: 'submit' }>,
): Promise<number> {
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
  if (!wait) return 0;
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
