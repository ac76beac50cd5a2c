import type { Route, ShadowConfig, VersionWeight } from '@mesh/routing';
import type { ShadowAgreement } from '@mesh/signals';
import type {
  BackendFleet,
  BackendReadiness,
  Clock,
  DesiredVersions,
  DrainStatus,
  ModelCatalog,
  RouteChange,
  RouteSnapshot,
  RouteStore,
  RouterFleet,
  RoutingVerdict,
  SignalQuery,
  TrafficSignals,
  VersionSignals,
  Warmer,
} from '../rollout/rollout-ports';

/** A settable clock. */
export class FakeClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export const EMPTY_SIGNALS: VersionSignals = {
  requests: 0,
  errors: 0,
  errorsByClass: {},
  errorRate: 0,
  ratePerSecond: 0,
  p50Ms: null,
  p99Ms: null,
};

/**
 * An in-memory mesh behind the coordinator's ports: one routing table with epochs and an
 * audit list, backends with loaded versions, routers' heartbeats and scripted signals.
 */
export class FakeMesh
  implements
    RouteStore,
    BackendFleet,
    RouterFleet,
    TrafficSignals,
    ModelCatalog,
    Warmer,
    DesiredVersions
{
  epoch = 10;
  routes: Route[] = [];
  audit: { epoch: number; who: string; target: string; versions: VersionWeight[] }[] = [];
  /** address → model → served versions */
  backends = new Map<string, Map<string, number[]>>();
  loads: { address: string; model: string; versions: number[] }[] = [];
  sha = new Map<string, string>();
  routerEpoch = 0;
  routable = true;
  inFlight = 0;
  /** Signals by version (undefined key = task-wide). */
  signals = new Map<number | 'task', VersionSignals>();
  queries: SignalQuery[] = [];
  /** What the shadow comparisons measured (any window). */
  agreement: ShadowAgreement = { compared: 0, agreed: 0, agreement: null };
  desiredMap = new Map<string, number[]>();
  catalogProblems: string[] = [];
  warmFailures = 0;
  /** The `traceparent` each warm-up was sent with (undefined: untraced). */
  warmTraceparents: (string | undefined)[] = [];
  /** When set, the next setVersions fails with this error (after nothing was written). */
  failNextWrite: Error | undefined;

  constructor(addresses: string[] = ['host-a:8001', 'host-b:8001']) {
    for (const a of addresses) this.backends.set(a, new Map());
  }

  // RouteStore
  async get(tenant: string, task: string): Promise<RouteSnapshot | undefined> {
    const route = this.routes.find((r) => r.tenant === tenant && r.task === task);
    return route ? { route: structuredClone(route), epoch: this.epoch } : undefined;
  }
  async routesOfModel(model: string): Promise<Route[]> {
    return this.routes.filter((r) => r.model === model).map((r) => structuredClone(r));
  }
  async changesSince(tenant: string, task: string, epoch: number): Promise<RouteChange[]> {
    return this.audit
      .filter((e) => e.epoch > epoch && e.target === `${tenant}/${task}`)
      .map((e) => ({ epoch: e.epoch, who: e.who, action: 'route.upsert' }));
  }
  async setVersions(
    tenant: string,
    task: string,
    versions: VersionWeight[],
    options: { expectedEpoch: number; who: string },
  ): Promise<number> {
    if (this.failNextWrite) {
      const err = this.failNextWrite;
      this.failNextWrite = undefined;
      throw err;
    }
    if (options.expectedEpoch !== this.epoch) throw new Error('epoch conflict');
    const route = this.routes.find((r) => r.tenant === tenant && r.task === task);
    if (!route) throw new Error('no route');
    route.versions = versions.map((v) => ({ ...v }));
    this.epoch += 1;
    this.audit.push({
      epoch: this.epoch,
      who: options.who,
      target: `${tenant}/${task}`,
      versions: route.versions,
    });
    return this.epoch;
  }

  async setShadow(
    tenant: string,
    task: string,
    shadow: ShadowConfig | undefined,
    options: { expectedEpoch: number; who: string },
  ): Promise<number> {
    if (options.expectedEpoch !== this.epoch) throw new Error('epoch conflict');
    const route = this.routes.find((r) => r.tenant === tenant && r.task === task);
    if (!route) throw new Error('no route');
    if (shadow) route.shadow = { ...shadow };
    else delete route.shadow;
    this.epoch += 1;
    this.audit.push({
      epoch: this.epoch,
      who: options.who,
      target: `${tenant}/${task}`,
      versions: route.versions,
    });
    return this.epoch;
  }

  // BackendFleet
  async readiness(model: string, version: number): Promise<BackendReadiness[]> {
    return [...this.backends.entries()].map(([address, models]) => {
      const ready = (models.get(model) ?? []).includes(version);
      const sha = this.sha.get(`${address}/${model}/${version}`) ?? `sha-${model}-${version}`;
      return ready ? { address, ready, sha } : { address, ready, problem: 'not loaded' };
    });
  }
  async serve(model: string, versions: number[], addresses?: string[]): Promise<void> {
    for (const [address, models] of this.backends) {
      if (addresses && !addresses.includes(address)) continue;
      models.set(model, [...versions]);
      this.loads.push({ address, model, versions: [...versions] });
    }
  }

  // RouterFleet
  async canAllRoute(model: string, version: number, minEpoch: number): Promise<RoutingVerdict> {
    const ok = this.routable && this.routerEpoch >= minEpoch;
    return { ok, routers: 2, blocking: ok ? [] : ['router-1: not yet'] };
  }
  async drainStatus(_model: string, _versions: number[], minEpoch: number): Promise<DrainStatus> {
    return {
      routers: 2,
      behind: this.routerEpoch >= minEpoch ? [] : ['router-1'],
      inFlight: this.inFlight,
    };
  }

  // TrafficSignals
  async read(query: SignalQuery): Promise<VersionSignals> {
    this.queries.push(query);
    const key = query.version ?? 'task';
    return this.signals.get(key) ?? EMPTY_SIGNALS;
  }

  async readShadow(query: SignalQuery): Promise<ShadowAgreement> {
    this.queries.push(query);
    return this.agreement;
  }

  // ModelCatalog
  async problems(): Promise<string[]> {
    return this.catalogProblems;
  }
  async expectedSha(model: string, version: number): Promise<string> {
    return `sha-${model}-${version}`;
  }

  // Warmer
  async warm(_model: string, _version: number, requests: number, traceparent?: string) {
    this.warmTraceparents.push(traceparent);
    return { ok: requests - this.warmFailures, failed: this.warmFailures };
  }

  // DesiredVersions
  async set(model: string, versions: number[]): Promise<void> {
    this.desiredMap.set(model, [...versions]);
  }
  async all(): Promise<Map<string, number[]>> {
    return new Map(this.desiredMap);
  }

  /** Routers catch up with the table. */
  syncRouters(): void {
    this.routerEpoch = this.epoch;
  }

  weightsOf(tenant: string, task: string): VersionWeight[] {
    return this.routes.find((r) => r.tenant === tenant && r.task === task)?.versions ?? [];
  }
}

export function signals(partial: Partial<VersionSignals>): VersionSignals {
  return { ...EMPTY_SIGNALS, ...partial };
}
