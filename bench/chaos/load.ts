/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- wire JSON and grpc-js dynamic clients are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { ROOT, TASK, hostPort, sleep } from './cluster';

/**
 * The steady load of the chaos scenarios: a closed loop (N callers, each sends again as soon as
 * it has an answer) or a fixed-rate open loop (arrivals do not wait for answers), over HTTP
 * keep-alive or the router's gRPC API. Every request's outcome is recorded by class — `200`,
 * `503 BACKEND_UNAVAILABLE`, `ECONNREFUSED`, `grpc UNAVAILABLE` … — with its start time,
 * latency and which target answered, so scenarios can count failures exactly and attribute
 * them (e.g. "in flight on the killed host").
 */

export interface Outcome {
  /** Start, ms since the recorder's origin. */
  t: number;
  /** Latency of the last attempt's answer, ms (the whole call, retries included). */
  ms: number;
  cls: string;
  ok: boolean;
  /** Index of the target that gave the final answer. */
  target: number;
  attempts: number;
  /** Classes of attempts that were retried (empty without retries). */
  retried: string[];
  /** HTTP `Retry-After`, gRPC `grpc-retry-pushback-ms` / `retry-after`, when sent. */
  retryAfter?: string;
  pushbackMs?: string;
  /** Which backend version/model answered, when the body says. */
  served?: string;
}

export class Recorder {
  readonly origin = Date.now();
  readonly outcomes: Outcome[] = [];

  now(): number {
    return Date.now() - this.origin;
  }

  add(o: Outcome): void {
    this.outcomes.push(o);
  }

  between(from: number, to = Infinity): Outcome[] {
    return this.outcomes.filter((o) => o.t >= from && o.t < to);
  }

  counts(list: readonly Outcome[] = this.outcomes): Record<string, number> {
    const c: Record<string, number> = {};
    for (const o of list) c[o.cls] = (c[o.cls] ?? 0) + 1;
    return c;
  }

  failures(list: readonly Outcome[] = this.outcomes): Record<string, number> {
    return this.counts(list.filter((o) => !o.ok));
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One attempt as a transport reports it. */
export interface Attempt {
  cls: string;
  ok: boolean;
  /** True when the client may safely send it again elsewhere (see `RetryPolicy`). */
  retryable: boolean;
  retryAfter?: string;
  pushbackMs?: string;
  served?: string;
}

/**
 * What a retrying client or load balancer resends, to another target: answers that prove the
 * request never reached a handler — connection refused, a connection reset or closed before any
 * response byte, and Fastify's own `503` to requests that arrive while the server closes (no
 * mesh error code; `connection: close`) — plus the router's `SHUTTING_DOWN`. Everything else,
 * including `503 BACKEND_UNAVAILABLE`, is the answer.
 */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

export type Send = (target: number) => Promise<Attempt>;

/** Calls `send` on target `first`, then (when retryable) on the following targets. */
export async function callWithRetry(
  send: Send,
  targets: number,
  first: number,
  rec: Recorder,
  retry?: RetryPolicy,
): Promise<Outcome> {
  const t = rec.now();
  const retried: string[] = [];
  const max = retry ? retry.attempts : 1;
  let target = first;
  for (let attempt = 1; ; attempt++) {
    const a = await send(target).catch((err: unknown): Attempt => ({
      cls: `client error: ${err instanceof Error ? err.message : String(err)}`,
      ok: false,
      retryable: false,
    }));
    if (!a.retryable || attempt >= max) {
      const out: Outcome = {
        t,
        ms: rec.now() - t,
        cls: a.cls,
        ok: a.ok,
        target,
        attempts: attempt,
        retried,
        ...(a.retryAfter !== undefined ? { retryAfter: a.retryAfter } : {}),
        ...(a.pushbackMs !== undefined ? { pushbackMs: a.pushbackMs } : {}),
        ...(a.served !== undefined ? { served: a.served } : {}),
      };
      rec.add(out);
      return out;
    }
    retried.push(a.cls);
    target = (target + 1) % targets;
    if (retry && retry.backoffMs > 0) await sleep(retry.backoffMs);
  }
}

/** Distinct short question-like texts, deterministic per index. */
export function textOf(i: number): string {
  const cjk = String.fromCodePoint(0x4e00 + ((i * 7919) % 20000), 0x4e00 + ((i * 104729) % 20000));
  return `${cjk}是什么 ${i % 97}`;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

/** HTTP `POST /v1/predict` on `urls[target]` (a function, so a restarted router can move). */
export function httpPredict(
  urls: () => readonly string[],
  key: string,
  { task = TASK, timeoutMs = CLIENT_TIMEOUT_MS } = {},
): Send {
  let n = 0;
  return (target) =>
    new Promise<Attempt>((resolve) => {
      const body = JSON.stringify({ task, text: textOf(n++) });
      let gotResponse = false;
      const req = request(
        `${urls()[target]}/v1/predict`,
        {
          method: 'POST',
          agent,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${key}`,
          },
        },
        (res) => {
          gotResponse = true;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('error', () => resolve({ cls: 'response aborted', ok: false, retryable: false }));
          res.on('end', () => resolve(classifyHttp(res.statusCode ?? 0, res.headers, text)));
        },
      );
      req.on('timeout', () =>
        req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (gotResponse) return;
        const code = err.code ?? err.message;
        // Nothing of an answer arrived: the request never reached (or never left) a handler
        // that could have acted on it, so resending is safe for an idempotent predict.
        const beforeAnyByte = code !== 'TIMEOUT';
        resolve({ cls: code, ok: false, retryable: beforeAnyByte });
      });
      req.end(body);
    });
}

function classifyHttp(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): Attempt {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const retryAfter =
    typeof headers['retry-after'] === 'string' ? headers['retry-after'] : undefined;
  if (status === 200) {
    const served =
      body && typeof body.model === 'string' ? `${body.model}:${body.version}` : undefined;
    const ok = body !== undefined && typeof body.label === 'string';
    return {
      cls: ok ? '200' : '200 malformed',
      ok,
      retryable: false,
      ...(served ? { served } : {}),
    };
  }
  const code: string | undefined = body?.error?.code;
  // Fastify answers requests that arrive while it closes with its own 503 (no mesh code).
  const closing = status === 503 && code === undefined;
  const cls = closing ? '503 closing' : `${status} ${code ?? 'no-code'}`;
  return {
    cls,
    ok: false,
    retryable: closing || code === 'SHUTTING_DOWN',
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

let predictorDef: any;

/** A raw grpc-js client of mesh.v1.Predictor built from proto/, as any user would. */
export function predictorClient(address: string): any {
  predictorDef ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(join(ROOT, 'proto', 'mesh', 'v1', 'predictor.proto'), {
      keepCase: false,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    }),
  );
  return new predictorDef.mesh.v1.Predictor(hostPort(address), grpc.credentials.createInsecure());
}

/** gRPC `Predict` on `addresses()[target]`; one channel per address, reused. */
export function grpcPredict(
  addresses: () => readonly string[],
  key: string,
  { task = TASK, timeoutMs = CLIENT_TIMEOUT_MS } = {},
): Send & { close(): void } {
  const clients = new Map<string, any>();
  let n = 0;
  const send = (target: number) =>
    new Promise<Attempt>((resolve) => {
      const address = addresses()[target]!;
      let client = clients.get(address);
      if (!client) clients.set(address, (client = predictorClient(address)));
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${key}`);
      const call = client.Predict(
        { task, text: textOf(n++) },
        md,
        { deadline: Date.now() + timeoutMs },
        (err: grpc.ServiceError | null, res: any) => {
          if (!err) {
            const ok = typeof res?.prediction?.label === 'string';
            resolve({
              cls: ok ? 'grpc OK' : 'grpc OK malformed',
              ok,
              retryable: false,
              served: `${res?.model}:${res?.version}`,
            });
            return;
          }
          const meshCode = err.metadata?.get('x-mesh-error-code')[0];
          const pushback = err.metadata?.get('grpc-retry-pushback-ms')[0];
          const retryAfter = err.metadata?.get('retry-after')[0];
          const name = grpc.status[err.code] ?? String(err.code);
          resolve({
            cls: `grpc ${name}${meshCode ? ` ${String(meshCode)}` : ''}`,
            ok: false,
            // UNAVAILABLE without a mesh code is the transport's (refused, reset, GOAWAY).
            retryable:
              (err.code === grpc.status.UNAVAILABLE && meshCode === undefined) ||
              meshCode === 'SHUTTING_DOWN',
            ...(pushback !== undefined ? { pushbackMs: String(pushback) } : {}),
            ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}),
          });
        },
      );
      void call;
    });
  return Object.assign(send, {
    close: () => {
      for (const c of clients.values()) (c as grpc.Client).close();
      clients.clear();
    },
  });
}

export interface LoopOptions {
  send: Send;
  /** How many targets `send` knows; callers are spread over them round-robin. */
  targets: number;
  rec: Recorder;
  retry?: RetryPolicy;
  /** Ends the loop (callers finish their current request). */
  signal: AbortSignal;
}

/**
 * `concurrency` callers that each send the next request when the previous one answered.
 * `pauseAfterFailureMs` is a caller's pause after a failed call, so a refused connection does
 * not turn into thousands of instant failures that drown the counts.
 */
export async function closedLoop(
  opts: LoopOptions & { concurrency: number; pauseAfterFailureMs?: number },
): Promise<void> {
  const { send, targets, rec, retry, signal, concurrency, pauseAfterFailureMs = 0 } = opts;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      while (!signal.aborted) {
        const out = await callWithRetry(send, targets, i % targets, rec, retry);
        if (!out.ok && pauseAfterFailureMs > 0) await sleep(pauseAfterFailureMs);
      }
    }),
  );
}

/**
 * Requests start at a fixed rate whatever the answers do (arrivals of many independent clients).
 * `maxOutstanding` only guards the generator itself: beyond it an arrival is recorded as
 * `client-dropped` (counted, not sent), so a dead server cannot make the generator grow without
 * bound.
 */
export async function openLoop(
  opts: LoopOptions & { rps: number; maxOutstanding?: number },
): Promise<void> {
  const { send, targets, rec, retry, signal, rps, maxOutstanding = 2000 } = opts;
  const pending = new Set<Promise<unknown>>();
  const start = Date.now();
  let sent = 0;
  while (!signal.aborted) {
    const due = Math.floor(((Date.now() - start) * rps) / 1000);
    while (sent < due) {
      const target = sent % targets;
      sent++;
      if (pending.size >= maxOutstanding) {
        rec.add({
          t: rec.now(),
          ms: 0,
          cls: 'client-dropped',
          ok: false,
          target,
          attempts: 0,
          retried: [],
        });
        continue;
      }
      const p = callWithRetry(send, targets, target, rec, retry).finally(() => pending.delete(p));
      pending.add(p);
    }
    await sleep(Math.max(1, Math.min(20, 1000 / rps)));
  }
  await Promise.all(pending);
}

/** Per-request deadline of the generator's own calls (a hang shows up as `TIMEOUT`). */
export const CLIENT_TIMEOUT_MS = 15_000;

/**
 * An AbortSignal that fires after `ms` or when any of `parents` aborts. Built by hand: on
 * Node 20, `AbortSignal.any([AbortSignal.timeout(ms)])` can lose its timeout to garbage
 * collection and never fire, which would let a phase run on forever.
 */
export function after(ms: number, ...parents: AbortSignal[]): AbortSignal {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  for (const p of parents) {
    if (p.aborted) ctl.abort();
    else p.addEventListener('abort', () => ctl.abort(), { once: true });
  }
  ctl.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  return ctl.signal;
}

/** Fires when any of `signals` fires (see `after` for why not `AbortSignal.any`). */
export function anyOf(...signals: AbortSignal[]): AbortSignal {
  return after(2 ** 31 - 1, ...signals);
}
