import type { RoutingTableRepository, TrafficSignalSource, VersionSignals } from '@mesh/routing';
import type { Clock } from '../rollout/rollout.ports';

/** Per-step values of one version, aligned with TrafficView.times. */
export interface TrafficSeries {
  ratePerSecond: number[];
  errorRate: number[];
  p50Ms: (number | null)[];
  p99Ms: (number | null)[];
}

export interface TrafficRow {
  task: string;
  model: string;
  version: number;
  /** The whole window, as a rollout gate would read it. */
  summary: VersionSignals;
  series: TrafficSeries;
}

export interface TrafficView {
  fromMs: number;
  toMs: number;
  stepMs: number;
  /** Start (unix ms) of each step of the series. */
  times: number[];
  rows: TrafficRow[];
}

export interface TrafficViewOptions {
  /** Default 15 minutes. */
  windowMs?: number;
  /** Default 30 s; a multiple of the routers' 5 s signal buckets. */
  stepMs?: number;
  /** The routers' bucket length; the window ends at the last complete bucket. Default 5 s. */
  bucketMs?: number;
}

/**
 * The Traffic view: per task and version, the window's totals and a series, read through the
 * same TrafficSignalSource the rollout gates use. Versions are those the routing table names
 * (weights and shadows), so a version that stopped getting traffic still shows its tail.
 */
export class TrafficViewReader {
  private readonly windowMs: number;
  private readonly stepMs: number;
  private readonly bucketMs: number;

  constructor(
    private readonly signals: TrafficSignalSource,
    private readonly table: Pick<RoutingTableRepository, 'load'>,
    private readonly clock: Clock,
    options: TrafficViewOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 15 * 60_000;
    this.stepMs = options.stepMs ?? 30_000;
    this.bucketMs = options.bucketMs ?? 5000;
  }

  async read(): Promise<TrafficView> {
    const toMs = Math.floor(this.clock.now() / this.bucketMs) * this.bucketMs;
    const fromMs = toMs - this.windowMs;
    const times: number[] = [];
    for (let t = fromMs; t < toMs; t += this.stepMs) times.push(t);
    const rows = await Promise.all(
      (await this.versions()).map(async (v): Promise<TrafficRow> => {
        const [summary, ...steps] = await Promise.all([
          this.signals.read({ ...v, fromMs, toMs }),
          ...times.map((t) =>
            this.signals.read({ ...v, fromMs: t, toMs: Math.min(toMs, t + this.stepMs) }),
          ),
        ]);
        return {
          ...v,
          summary: summary,
          series: {
            ratePerSecond: steps.map((s) => round(s.ratePerSecond)),
            errorRate: steps.map((s) => round(s.errorRate)),
            p50Ms: steps.map((s) => s.p50Ms),
            p99Ms: steps.map((s) => s.p99Ms),
          },
        };
      }),
    );
    return { fromMs, toMs, stepMs: this.stepMs, times, rows };
  }

  /** Distinct (task, model, version) the table routes or shadows, in table order. */
  private async versions(): Promise<{ task: string; model: string; version: number }[]> {
    const table = await this.table.load();
    const seen = new Map<string, { task: string; model: string; version: number }>();
    for (const route of table?.routes ?? []) {
      const versions = route.versions.map((v) => v.version);
      if (route.shadow) versions.push(route.shadow.version);
      for (const version of versions) {
        const ref = { task: route.task, model: route.model, version };
        seen.set(`${ref.task}\t${ref.model}\t${version}`, ref);
      }
    }
    return [...seen.values()];
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
