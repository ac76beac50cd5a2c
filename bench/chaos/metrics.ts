import { metricSum } from '../../libs/telemetry/src/testing/prometheus-text';
import { rssBytes, type Cluster, type Proc } from './cluster';

/**
 * Reading the apps' Prometheus endpoints and the processes' memory while a scenario runs.
 */

export async function scrape(url: string, timeoutMs = 3000): Promise<string> {
  const res = await fetch(`${url.replace(/\/$/, '')}/metrics`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  return res.text();
}

/** Sum of a metric's samples carrying every given label (NaN-free): the specs' parser. */
export { metricSum };

/** Where a process serves /metrics: the host on its metrics port, the others on http. */
export function metricsUrl(p: Proc): string | undefined {
  return p.urls.metrics ?? p.urls.http;
}

/** Successful inferences a model host has run so far (Triton's counter). */
export async function hostSuccesses(host: Proc): Promise<number> {
  return metricSum(await scrape(host.urls.metrics!), 'nv_inference_request_success');
}

export interface Sample {
  t: number;
  /** RSS in MiB per process name. */
  rssMiB: Record<string, number>;
  /** Extra gauges per process name, read by `gauges`. */
  gauges: Record<string, Record<string, number>>;
}

/**
 * Samples every live process of a cluster every `intervalMs`: RSS from /proc and, through
 * `gauges`, values read from its /metrics (queue depths, event-loop delay …).
 */
export class Sampler {
  readonly samples: Sample[] = [];
  private timer?: NodeJS.Timeout;
  private readonly origin = Date.now();
  private busy = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly gauges: Record<string, (text: string) => number> = {},
    private readonly intervalMs = 500,
  ) {}

  start(): this {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 20));
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const sample: Sample = { t: Date.now() - this.origin, rssMiB: {}, gauges: {} };
      await Promise.all(
        this.cluster.live().map(async (p) => {
          sample.rssMiB[p.name] = rssBytes(p.pid) / 2 ** 20;
          const url = metricsUrl(p);
          if (!url || Object.keys(this.gauges).length === 0 || p.name === 'redis') return;
          try {
            const text = await scrape(url, 1000);
            sample.gauges[p.name] = Object.fromEntries(
              Object.entries(this.gauges).map(([k, read]) => [k, read(text)]),
            );
          } catch {
            // a process being killed or busy: no gauge this round
          }
        }),
      );
      this.samples.push(sample);
    } finally {
      this.busy = false;
    }
  }

  /** Highest RSS seen per process, MiB. */
  maxRss(): Record<string, number> {
    const max: Record<string, number> = {};
    for (const s of this.samples)
      for (const [k, v] of Object.entries(s.rssMiB)) max[k] = Math.max(max[k] ?? 0, v);
    return max;
  }

  /** Highest value of one gauge per process. */
  maxGauge(name: string): Record<string, number> {
    const max: Record<string, number> = {};
    for (const s of this.samples)
      for (const [p, g] of Object.entries(s.gauges))
        if (g[name] !== undefined) max[p] = Math.max(max[p] ?? 0, g[name]);
    return max;
  }

  /** (t, value) series of one process's RSS or gauge, for slopes. */
  series(proc: string, gauge?: string): { t: number; v: number }[] {
    const out: { t: number; v: number }[] = [];
    for (const s of this.samples) {
      const v = gauge ? s.gauges[proc]?.[gauge] : s.rssMiB[proc];
      if (v !== undefined && Number.isFinite(v)) out.push({ t: s.t, v });
    }
    return out;
  }
}

/** Least-squares slope of v over t, per minute (t in ms). */
export function slopePerMinute(points: readonly { t: number; v: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60_000;
}
