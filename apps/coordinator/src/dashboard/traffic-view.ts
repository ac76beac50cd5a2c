import { roundForPeople } from '@mesh/rollout-contract';
import type { RoutingTable, RoutingTableRepository } from '@mesh/routing';
import type {
  TrafficSignalSource,
  TrafficVersionRef,
  TrafficVersionsSource,
  VersionSignals,
} from '@mesh/signals';
import type { Clock } from '../rollout/rollout-ports';

/** Per-step values of one version, aligned with TrafficView.times. */
export interface TrafficSeries {
  ratePerSecond: number[];
  errorRate: number[];
  p50Ms: (number | null)[];
  p99Ms: (number | null)[];
}

/** A version the view shows: one the table names, or one that served requests in the window. */
export interface TrafficVersion extends TrafficVersionRef {
  /** The routing table no longer names it (e.g. a rollout retired it); its tail still shows. */
  retired: boolean;
}

export interface TrafficRow extends TrafficVersion {
  /** The whole window, as a rollout gate would read it (rounded for people). */
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
 * (weights and shadows) and those that served requests in the window, so a version a rollout
 * retired keeps its traffic on screen, marked retired, until the window moves past it.
 */
export class TrafficViewReader {
  private readonly windowMs: number;
  private readonly stepMs: number;
  private readonly bucketMs: number;

  constructor(
    private readonly signals: TrafficSignalSource & TrafficVersionsSource,
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
    const [table, served] = await Promise.all([
      this.table.load(),
      this.signals.versionsWithTraffic({ fromMs, toMs }),
    ]);
    const rows = await Promise.all(
      trafficVersions(table, served).map(async (v): Promise<TrafficRow> => {
        const ref = { task: v.task, model: v.model, version: v.version };
        const [summary, ...steps] = await Promise.all([
          this.signals.read({ ...ref, fromMs, toMs }),
          ...times.map((t) =>
            this.signals.read({ ...ref, fromMs: t, toMs: Math.min(toMs, t + this.stepMs) }),
          ),
        ]);
        return { ...v, summary: roundedSignals(summary), series: seriesOf(steps) };
      }),
    );
    return { fromMs, toMs, stepMs: this.stepMs, times, rows };
  }
}

/**
 * The versions of the view: those the table routes or shadows, in table order, then those that
 * served requests in the window but that the table no longer names (retired), in the order
 * given. The page groups rows by task, so a retired version shows beside its task's others.
 */
export function trafficVersions(
  table: Pick<RoutingTable, 'routes'> | null,
  served: readonly TrafficVersionRef[],
): TrafficVersion[] {
  const key = (r: TrafficVersionRef) => `${r.task}\t${r.model}\t${r.version}`;
  const seen = new Map<string, TrafficVersion>();
  for (const route of table?.routes ?? []) {
    const versions = route.versions.map((v) => v.version);
    if (route.shadow) versions.push(route.shadow.version);
    for (const version of versions) {
      const ref = { task: route.task, model: route.model, version, retired: false };
      if (!seen.has(key(ref))) seen.set(key(ref), ref);
    }
  }
  for (const ref of served) {
    if (!seen.has(key(ref))) seen.set(key(ref), { ...ref, retired: true });
  }
  return [...seen.values()];
}

function roundedSignals(s: VersionSignals): VersionSignals {
  return {
    ...s,
    errorRate: roundForPeople(s.errorRate),
    ratePerSecond: roundForPeople(s.ratePerSecond),
    p50Ms: nullable(s.p50Ms),
    p99Ms: nullable(s.p99Ms),
  };
}

function seriesOf(steps: readonly VersionSignals[]): TrafficSeries {
  return {
    ratePerSecond: steps.map((s) => roundForPeople(s.ratePerSecond)),
    errorRate: steps.map((s) => roundForPeople(s.errorRate)),
    p50Ms: steps.map((s) => nullable(s.p50Ms)),
    p99Ms: steps.map((s) => nullable(s.p99Ms)),
  };
}

function nullable(n: number | null): number | null {
  return n === null ? null : roundForPeople(n);
}
