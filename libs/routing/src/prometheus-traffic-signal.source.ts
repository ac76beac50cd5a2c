import type {
  TrafficSignalQuery,
  TrafficSignalSource,
  VersionSignals,
} from './traffic-signal.types';
import { versionErrors } from './traffic-signal.types';

export interface PrometheusTrafficSignalSourceOptions {
  /** Prometheus base URL, e.g. `http://prometheus:9090`. */
  baseUrl: string;
  /** Deadline of each query. Default 5 s. */
  timeoutMs?: number;
  /** Extra request headers (e.g. `authorization` for a managed Prometheus). */
  headers?: Record<string, string>;
}

/** The PromQL this source sends for one query (exported for tests and dashboards). */
export interface SignalQueries {
  requests: string;
  errorsByClass: string;
  p50: string;
  p99: string;
  /** Evaluation time, unix seconds (the window's end). */
  time: number;
  windowSeconds: number;
}

const REQUESTS = 'mesh_router_requests_total';
const DURATION = 'mesh_router_request_duration_seconds_bucket';

/**
 * The same signals as RedisTrafficSignalSource, computed by Prometheus from the routers'
 * `/metrics` (instant queries at the window's end over a `[window]` range), for production
 * where Prometheus already scrapes every router.
 */
export class PrometheusTrafficSignalSource implements TrafficSignalSource {
  constructor(private readonly options: PrometheusTrafficSignalSourceOptions) {}

  async read(q: TrafficSignalQuery): Promise<VersionSignals> {
    const queries = buildSignalQueries(q);
    const [requests, errors, p50, p99] = await Promise.all([
      this.query(queries.requests, queries.time),
      this.query(queries.errorsByClass, queries.time),
      this.query(queries.p50, queries.time),
      this.query(queries.p99, queries.time),
    ]);
    const total = Math.round(scalarOf(requests) ?? 0);
    const errorsByClass: Record<string, number> = {};
    for (const sample of errors) {
      const n = Math.round(Number(sample.value[1]));
      const code = sample.metric.outcome ?? 'unknown';
      if (n > 0) errorsByClass[code] = (errorsByClass[code] ?? 0) + n;
    }
    const errorCount = versionErrors(errorsByClass);
    return {
      requests: total,
      errors: errorCount,
      errorsByClass,
      errorRate: total > 0 ? errorCount / total : 0,
      ratePerSecond: total / ((q.toMs - q.fromMs) / 1000),
      p50Ms: msOf(scalarOf(p50)),
      p99Ms: msOf(scalarOf(p99)),
    };
  }

  private async query(promql: string, time: number): Promise<PromSample[]> {
    const url = new URL('/api/v1/query', this.options.baseUrl);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.options.headers },
      body: new URLSearchParams({ query: promql, time: String(time) }).toString(),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
    });
    const body = (await res.json().catch(() => undefined)) as PromResponse | undefined;
    if (!res.ok || body?.status !== 'success') {
      const why = body?.error ?? `HTTP ${res.status}`;
      throw new Error(`prometheus query failed (${why}): ${promql}`);
    }
    if (body.data?.resultType !== 'vector') {
      throw new Error(`prometheus answered ${body.data?.resultType ?? 'no data'}, not a vector`);
    }
    return body.data.result ?? [];
  }
}

/** PromQL for a query: only requests that reached a version (`model != ""`). */
export function buildSignalQueries(q: TrafficSignalQuery): SignalQueries {
  if (!(q.toMs > q.fromMs))
    throw new RangeError(`empty window: toMs ${q.toMs} ≤ fromMs ${q.fromMs}`);
  const windowSeconds = Math.max(1, Math.ceil((q.toMs - q.fromMs) / 1000));
  const matchers = [`task="${escapeLabel(q.task)}"`, 'model!=""'];
  if (q.model !== undefined) matchers.push(`model="${escapeLabel(q.model)}"`);
  if (q.version !== undefined) matchers.push(`version="${q.version}"`);
  const sel = matchers.join(',');
  const range = `[${windowSeconds}s]`;
  const quantile = (p: number) =>
    `histogram_quantile(${p}, sum by (le) (increase(${DURATION}{${sel},outcome="ok"}${range})))`;
  return {
    requests: `sum(increase(${REQUESTS}{${sel}}${range}))`,
    errorsByClass: `sum by (outcome) (increase(${REQUESTS}{${sel},outcome!="ok"}${range}))`,
    p50: quantile(0.5),
    p99: quantile(0.99),
    time: q.toMs / 1000,
    windowSeconds,
  };
}

interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

interface PromResponse {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result?: PromSample[] };
}

function scalarOf(samples: PromSample[]): number | undefined {
  const v = samples[0] ? Number(samples[0].value[1]) : undefined;
  return v === undefined || Number.isNaN(v) ? undefined : v;
}

function msOf(seconds: number | undefined): number | null {
  return seconds === undefined || !Number.isFinite(seconds) ? null : seconds * 1000;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
