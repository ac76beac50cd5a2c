import { performance } from 'node:perf_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { parsePrometheusText } from '../../libs/telemetry/src/testing/prometheus-text';

/** One request of an arm: resolves when answered; throws on an error answer. */
export type Shot = (index: number) => Promise<void>;

export interface WindowStats {
  seconds: number;
  requests: number;
  errors: number;
  throughput: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
}

export interface PointResult extends WindowStats {
  stable: boolean;
  windows: number;
  /** CPU seconds per 1,000 requests, per process name. */
  cpuPer1k: Record<string, number>;
}

export interface MeasureOptions {
  concurrency: number;
  warmup: number;
  windowMs: number;
  minWindows: number;
  maxWindows: number;
  /** pids of the processes whose CPU time is charged to the arm (the generator is added). */
  pids: Record<string, number>;
  /** Requests per shot (a raw ORT batch answers several items at once). */
  itemsPerShot?: number;
}

/** CPU seconds (user + system) of a process from /proc; Linux only. */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the full line (11 and 12 after the comm).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Every thread of a process, by thread name (the main thread, i.e. the event loop, as `main`; the
 * others as `comm#tid`), from the scheduler (`/proc/<pid>/task/<tid>/schedstat`; Linux only):
 * `cpu`, its run time in seconds (ns resolution); `queued`, the seconds it spent runnable but
 * waiting for a CPU (on a busy core, behind other threads); and `runs`, how many times it was put
 * on a CPU (each wake-up from sleep is one; on a virtual machine that halts idle vCPUs, they are
 * dear).
 */
export function threadSched(pid: number): {
  cpu: Record<string, number>;
  queued: Record<string, number>;
  runs: Record<string, number>;
} {
  const cpu: Record<string, number> = {};
  const queued: Record<string, number> = {};
  const runs: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let fields: string[];
    let comm: string;
    try {
      fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ');
      comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = tid === String(pid) ? 'main' : `${comm}#${tid}`;
    cpu[name] = Number(fields[0]) / 1e9;
    queued[name] = Number(fields[1]) / 1e9;
    runs[name] = Number(fields[2]);
  }
  return { cpu, queued, runs };
}

/** CPU seconds of every thread of a process, by thread name (see threadSched). */
export function threadCpu(pid: number): Record<string, number> {
  return threadSched(pid).cpu;
}

/** One per-thread measure (see threadSched) as the event loop's (`main`) and all the others'. */
export function splitByEventLoop(byThread: Record<string, number>): {
  main: number;
  others: number;
} {
  const { main = 0, ...others } = byThread;
  return { main, others: Object.values(others).reduce((a, b) => a + b, 0) };
}

/** CPU seconds of a process's event loop (`main`) and of all its other threads together. */
export function eventLoopSplit(pid: number): { main: number; others: number } {
  return splitByEventLoop(threadCpu(pid));
}

function cpuSnapshot(pids: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = cpuSecondsOf(pid);
  const u = process.cpuUsage();
  out.generator = (u.user + u.system) / 1e6;
  return out;
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/**
 * Closed loop, perf_analyzer style: warm up, then windows until 3 consecutive ones agree
 * within 10 % on throughput and p95 (or give up after maxWindows and mark "unstable").
 */
export async function measure(shot: Shot, o: MeasureOptions): Promise<PointResult> {
  const items = o.itemsPerShot ?? 1;
  let index = 0;
  let latencies: number[] = [];
  let errors = 0;
  let stop = false;
  let record = false;
  const worker = async () => {
    while (!stop) {
      const i = index++;
      const start = performance.now();
      try {
        await shot(i);
        if (record) for (let k = 0; k < items; k++) latencies.push(performance.now() - start);
      } catch {
        if (record) errors += items;
      }
    }
  };
  const workers = Array.from({ length: o.concurrency }, worker);
  while (index < o.warmup) await new Promise((r) => setTimeout(r, 20));
  const windows: WindowStats[] = [];
  const windowLatencies: number[][] = [];
  const cpuStart = cpuSnapshot(o.pids);
  record = true;
  for (let w = 0; w < o.maxWindows; w++) {
    latencies = [];
    errors = 0;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, o.windowMs));
    windows.push(stats(latencies, errors, (performance.now() - t0) / 1000));
    windowLatencies.push(latencies);
    if (windows.length >= o.minWindows && agree(windows.slice(-o.minWindows))) break;
  }
  const cpuEnd = cpuSnapshot(o.pids);
  stop = true;
  await Promise.all(workers);
  const last = windows.slice(-o.minWindows);
  const total = last.reduce((s, x) => s + x.requests, 0) || 1;
  const allRequests = windows.reduce((s, x) => s + x.requests, 0) || 1;
  const cpuPer1k: Record<string, number> = {};
  for (const k of Object.keys(cpuEnd))
    cpuPer1k[k] = round(((cpuEnd[k]! - cpuStart[k]!) / allRequests) * 1000, 3);
  const merged = mergeWindows(last, windowLatencies.slice(-o.minWindows).flat());
  return { ...merged, requests: total, stable: agree(last), windows: windows.length, cpuPer1k };
}

export function latencyStats(latencies: readonly number[]): {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
} {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
  };
}

function stats(latencies: number[], errors: number, seconds: number): WindowStats {
  return {
    seconds,
    requests: latencies.length,
    errors,
    throughput: latencies.length / seconds,
    ...latencyStats(latencies),
  };
}

export interface OpenLoopOptions {
  /** Arrivals per second, evenly spaced. */
  rate: number;
  warmupMs: number;
  durationMs: number;
  pids: Record<string, number>;
  /** Arrivals beyond this many outstanding requests are dropped and counted as errors. */
  maxOutstanding: number;
}

/**
 * Open loop: requests arrive at a fixed rate whether or not earlier ones are answered, and
 * latency counts from the scheduled arrival, so queueing shows (no coordinated omission).
 */
export async function openLoop(shot: Shot, o: OpenLoopOptions): Promise<PointResult> {
  const latencies: number[] = [];
  let errors = 0;
  let outstanding = 0;
  let index = 0;
  const pending = new Set<Promise<void>>();
  const t0 = performance.now();
  const measureFrom = t0 + o.warmupMs;
  const end = measureFrom + o.durationMs;
  let cpuStart: Record<string, number> | undefined;
  let counted = 0;
  for (;;) {
    const now = performance.now();
    if (now >= end) break;
    if (!cpuStart && now >= measureFrom) cpuStart = cpuSnapshot(o.pids);
    while (t0 + (index * 1000) / o.rate <= now) {
      const scheduled = t0 + (index * 1000) / o.rate;
      const i = index++;
      const record = scheduled >= measureFrom;
      if (record) counted++;
      if (outstanding >= o.maxOutstanding) {
        if (record) errors++;
        continue;
      }
      outstanding++;
      const p = shot(i).then(
        () => {
          if (record) latencies.push(performance.now() - scheduled);
        },
        () => {
          if (record) errors++;
        },
      );
      const tracked = p.finally(() => {
        outstanding--;
        pending.delete(tracked);
      });
      pending.add(tracked);
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  const cpuEnd = cpuSnapshot(o.pids);
  const cpuPer1k: Record<string, number> = {};
  for (const k of Object.keys(cpuEnd))
    cpuPer1k[k] = round(((cpuEnd[k]! - (cpuStart?.[k] ?? 0)) / Math.max(1, counted)) * 1000, 3);
  const s = latencyStats(latencies);
  return {
    seconds: round(o.durationMs / 1000, 2),
    requests: latencies.length,
    errors,
    throughput: round(latencies.length / (o.durationMs / 1000), 1),
    p50: round(s.p50, 3),
    p90: round(s.p90, 3),
    p95: round(s.p95, 3),
    p99: round(s.p99, 3),
    stable: errors === 0,
    windows: 1,
    cpuPer1k,
  };
}

/** The counted windows together: throughput over their time, percentiles over their requests. */
function mergeWindows(ws: readonly WindowStats[], latencies: number[]): WindowStats {
  const seconds = ws.reduce((s, w) => s + w.seconds, 0);
  const all = stats(
    latencies,
    ws.reduce((s, w) => s + w.errors, 0),
    seconds,
  );
  return {
    seconds: round(seconds, 2),
    requests: all.requests,
    errors: all.errors,
    throughput: round(all.throughput, 1),
    p50: round(all.p50, 3),
    p90: round(all.p90, 3),
    p95: round(all.p95, 3),
    p99: round(all.p99, 3),
  };
}

function agree(ws: readonly WindowStats[]): boolean {
  const within = (xs: number[]) => Math.max(...xs) <= Math.min(...xs) * 1.1;
  return within(ws.map((w) => w.throughput)) && within(ws.map((w) => w.p95));
}

/** The middle value (the upper one of the two middles for an even count), as the benches keep it. */
export function medianOf(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Every series of a Prometheus text exposition whose labels name `model`, summed by metric name
 * (histogram `_sum` and `_count` included); a `stage` label is kept in the key as `name{stage}`.
 */
export function metricSums(text: string, model: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const { name, labels, value } of parsePrometheusText(text)) {
    if (labels.model !== model) continue;
    const key = labels.stage ? `${name}{${labels.stage}}` : name;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  return out;
}
