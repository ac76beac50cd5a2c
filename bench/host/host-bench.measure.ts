/** One completed request as the load generator saw it. */
export interface Sample {
  endMs: number;
  latencyMs: number;
  ok: boolean;
}

export interface WindowStats {
  throughput: number;
  p95: number;
}

export interface PointResult {
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  requests: number;
  windows: number;
  stable: boolean;
  /** CPU seconds per 1,000 requests, per process name. */
  cpuPer1k: Record<string, number>;
  /** Share of the machine's cores the load generator used while measuring. */
  generatorCpuShare: number;
}

export interface MeasureOptions {
  warmupRequests: number;
  windowMs: number;
  agreeWindows: number;
  maxWindows: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** perf_analyzer's rule: the last `n` windows agree within 10 % on throughput and p95. */
export function windowsAgree(windows: readonly WindowStats[], n: number): boolean {
  if (windows.length < n) return false;
  const last = windows.slice(-n);
  const within = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return mean > 0 && (Math.max(...xs) - Math.min(...xs)) / mean <= 0.1;
  };
  return within(last.map((w) => w.throughput)) && within(last.map((w) => w.p95));
}

export function summarize(
  samples: readonly Sample[],
  spanMs: number,
): Omit<PointResult, 'windows' | 'stable' | 'cpuPer1k' | 'generatorCpuShare'> {
  const ok = samples.filter((s) => s.ok);
  const lat = ok.map((s) => s.latencyMs).sort((a, b) => a - b);
  return {
    throughput: (ok.length * 1000) / spanMs,
    p50: percentile(lat, 50),
    p90: percentile(lat, 90),
    p99: percentile(lat, 99),
    errors: samples.length - ok.length,
    requests: samples.length,
  };
}
