import { metricSum } from '../../libs/telemetry/src/testing/prometheus-text';
import { ADMIN_KEY, CHAOS_KEY, MODEL, TASK, sleep, waitFor } from './cluster';
import { textOf } from './load';

/**
 * Bulk jobs and rollouts as the chaos scenarios drive them over the public APIs, and the
 * exactly-once check of a job's results.
 */

export interface JobView {
  jobId?: string;
  id?: string;
  state: string;
  total: number;
  processed: number;
  failed?: number;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { raw: text };
  }
}

/** Submits `count` items as NDJSON; returns the job id. */
export async function submitJob(router: string, count: number, key = CHAOS_KEY): Promise<string> {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify({ id: `i${i}`, text: textOf(i) }));
  const res = await fetch(`${router}/v1/jobs?task=${TASK}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${key}` },
    body: `${lines.join('\n')}\n`,
  });
  const body = await json(res);
  if (res.status !== 202) throw new Error(`submit: HTTP ${res.status} ${JSON.stringify(body)}`);
  return String(body.jobId);
}

export interface Submission {
  /** The job id of the 202 (undefined when no attempt was acknowledged before the deadline). */
  jobId?: string;
  attempts: number;
  /** Answers that were retried, by class (`503 STORE_UNAVAILABLE`, `ECONNRESET` …). */
  retried: Record<string, number>;
  /** From the first attempt to the 202, ms. */
  ms: number;
}

/**
 * Submits `count` items with an `Idempotency-Key` and, as the API documents for a 503 (and a
 * client would for a connection error), sends the same request again with the same key after
 * `Retry-After` (capped at `backoffMs`) until a 202 or `deadlineMs`. Other answers end it.
 */
export async function submitJobIdempotent(
  router: string,
  count: number,
  idempotencyKey: string,
  { key = CHAOS_KEY, deadlineMs = 60_000, backoffMs = 500, firstIndex = 0 } = {},
): Promise<Submission> {
  const lines: string[] = [];
  for (let i = 0; i < count; i++)
    lines.push(JSON.stringify({ id: `i${i}`, text: textOf(firstIndex + i) }));
  const body = `${lines.join('\n')}\n`;
  const started = Date.now();
  const retried: Record<string, number> = {};
  for (let attempts = 1; ; attempts++) {
    let cls: string;
    let wait = backoffMs;
    try {
      const res = await fetch(`${router}/v1/jobs?task=${TASK}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          authorization: `Bearer ${key}`,
          'idempotency-key': idempotencyKey,
        },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      const parsed = await json(res);
      if (res.status === 202)
        return { jobId: String(parsed.jobId), attempts, retried, ms: Date.now() - started };
      const code = (parsed.error as { code?: string } | undefined)?.code;
      cls = `${res.status} ${code ?? 'no-code'}`;
      if (res.status !== 503) throw new Error(`submit: HTTP ${cls} ${JSON.stringify(parsed)}`);
      const after = Number(res.headers.get('retry-after'));
      if (Number.isFinite(after) && after > 0) wait = Math.min(backoffMs, after * 1000);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('submit: HTTP')) throw err;
      const cause = (err as { cause?: { code?: string } }).cause;
      cls = cause?.code ?? (err instanceof Error ? err.name : String(err));
    }
    retried[cls] = (retried[cls] ?? 0) + 1;
    if (Date.now() - started > deadlineMs) return { attempts, retried, ms: Date.now() - started };
    await sleep(wait);
  }
}

/** Every job of the tenant (`GET /v1/jobs`, newest first, up to `limit`). */
export async function listJobs(router: string, key = CHAOS_KEY, limit = 1000): Promise<JobView[]> {
  const res = await fetch(`${router}/v1/jobs?limit=${limit}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(5000),
  });
  if (res.status !== 200) throw new Error(`list jobs: HTTP ${res.status}`);
  return ((await res.json()) as { jobs: JobView[] }).jobs;
}

export async function jobView(router: string, id: string, key = CHAOS_KEY): Promise<JobView> {
  const res = await fetch(`${router}/v1/jobs/${id}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(5000),
  });
  if (res.status !== 200) throw new Error(`job ${id}: HTTP ${res.status}`);
  return (await res.json()) as JobView;
}

export function waitForJob(
  router: () => string,
  id: string,
  done: (v: JobView) => boolean,
  what: string,
  timeoutMs = 180_000,
): Promise<JobView> {
  return waitFor(
    async () => {
      const v = await jobView(router(), id);
      return done(v) ? v : undefined;
    },
    what,
    timeoutMs,
    100,
  );
}

/**
 * Reads the whole result stream and counts what breaks "each of the `total` items exactly once,
 * in input order, with its own id and a label": missing and duplicated indexes, and lines that
 * carry the wrong id or no prediction.
 */
export async function resultAudit(
  router: string,
  id: string,
  total: number,
  key = CHAOS_KEY,
): Promise<{ lines: number; missing: number; duplicated: number; wrong: number }> {
  const res = await fetch(`${router}/v1/jobs/${id}/results`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`results ${id}: HTTP ${res.status}`);
  const text = await res.text();
  const seen = new Map<number, number>();
  let wrong = 0;
  let lines = 0;
  let prev = -1;
  for (const line of text.split('\n')) {
    if (!line) continue;
    lines++;
    const r = JSON.parse(line) as { index: number; id?: string; label?: unknown };
    seen.set(r.index, (seen.get(r.index) ?? 0) + 1);
    if (r.id !== `i${r.index}` || typeof r.label !== 'string' || r.index <= prev) wrong++;
    prev = r.index;
  }
  let missing = 0;
  let duplicated = 0;
  for (let i = 0; i < total; i++) {
    const n = seen.get(i) ?? 0;
    if (n === 0) missing++;
    if (n > 1) duplicated += n - 1;
  }
  return { lines, missing, duplicated, wrong };
}

export interface RolloutView {
  id: string;
  state: string;
  step: number;
  timeline: { at: string; from: string; to: string; step: number; reason: string }[];
}

/** Moves `question-type` from version 1 to 2 in three short steps with loose gates. */
export async function createRollout(
  coordinator: string,
  holdSeconds: number,
): Promise<RolloutView> {
  const res = await fetch(`${coordinator}/v1/rollouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({
      task: TASK,
      model: MODEL,
      toVersion: 2,
      warmup: { requests: 2 },
      steps: [
        { weight: 10, holdSeconds },
        { weight: 50, holdSeconds },
        { weight: 100, holdSeconds },
      ],
      bakeSeconds: 1,
      gates: { maxErrorRate: 0.05, minRequests: 3 },
    }),
  });
  const body = await json(res);
  if (res.status !== 201)
    throw new Error(`create rollout: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body as unknown as RolloutView;
}

export async function rolloutView(coordinator: string, id: string): Promise<RolloutView> {
  const res = await fetch(`${coordinator}/v1/rollouts/${id}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    signal: AbortSignal.timeout(5000),
  });
  if (res.status !== 200) throw new Error(`rollout ${id}: HTTP ${res.status}`);
  return (await res.json()) as RolloutView;
}

export const TERMINAL = ['completed', 'rolled_back', 'aborted', 'failed'];

/** `canary:1 canary:2 …` from a timeline, the shape checks compare. */
export function transitions(v: RolloutView): string[] {
  return v.timeline.map((e) => `${e.to}${e.to === 'canary' ? `:${e.step}` : ''}`);
}

/**
 * Problems of a finished rollout's timeline: it must end `completed`, and its canary steps must
 * never go back (a coordinator that takes over continues from the step it finds).
 */
export function timelineProblems(v: RolloutView): string[] {
  const problems: string[] = [];
  if (v.state !== 'completed') problems.push(`ended ${v.state}`);
  const steps = v.timeline.filter((e) => e.to === 'canary').map((e) => e.step);
  for (let i = 1; i < steps.length; i++) {
    if (steps[i]! < steps[i - 1]!) problems.push(`canary step ${steps[i]} after ${steps[i - 1]}`);
  }
  if (!steps.includes(3)) problems.push('never reached step 3');
  return problems;
}

/** Which coordinator holds the lease, from each one's `mesh_coordinator_leader` gauge. */
export async function leaderOf<T extends { urls: Record<string, string> }>(
  coordinators: readonly T[],
): Promise<T | undefined> {
  for (const c of coordinators) {
    try {
      const text = await (
        await fetch(`${c.urls.http}/metrics`, { signal: AbortSignal.timeout(2000) })
      ).text();
      if (metricSum(text, 'mesh_coordinator_leader') === 1) return c;
    } catch {
      // killed or busy
    }
  }
  return undefined;
}
