import { versionKey, type BackendLedger, type PendingDemand } from '@mesh/placement';
import type { Route } from '@mesh/routing';
import type { BackendSurvey } from '../rollout/adapters/kserve-backend-fleet';
import { incomingVersions } from '../rollout/rollout-weights';
import type {
  PlacementSnapshot,
  SnapshotBackend,
  SnapshotVersion,
  WantReason,
} from './placement-policy.types';
import type { BudgetOf, PlacementBackends, PlacementSources } from './placement-ports';
import type { PlacementRepository } from './placement.repository';

/** What one pass read, beside the policy's snapshot. */
export interface PassInputs {
  snapshot: PlacementSnapshot;
  surveys: BackendSurvey[];
  demand: PendingDemand[];
  /** `model@version` → last use, with this window's requests folded in. */
  lastUse: Map<string, number>;
}

type Entry = Omit<SnapshotVersion, 'mb' | 'wanted'> & { wanted: Set<WantReason> };

/**
 * Reads everything a placement pass decides on, at once: the backends (truth: their
 * repository index), what is wanted and why, the traffic, in-flight requests and footprints,
 * and the ledger's residency clocks (so a new leader keeps the old one's hysteresis).
 */
export class PlacementSnapshotReader {
  constructor(
    private readonly sources: PlacementSources,
    private readonly backends: Pick<PlacementBackends, 'survey'>,
    private readonly repository: PlacementRepository,
    private readonly budgetOf: BudgetOf,
    private readonly rateWindowMs: number,
  ) {}

  async read(now: number): Promise<PassInputs> {
    const s = this.sources;
    const [surveys, routes, desired, rollouts, pins, demand, requests, heartbeats] =
      await Promise.all([
        this.backends.survey(),
        s.routes(),
        s.desired(),
        s.activeRollouts(),
        s.pinned(),
        s.demand(),
        s.requests({ fromMs: now - this.rateWindowMs, toMs: now }),
        s.heartbeats(),
      ]);
    const [ledgers, measured, lastUse] = await Promise.all([
      this.repository.ledgers(),
      this.repository.footprints(),
      this.repository.lastUse(),
    ]);
    const entries = new Map<string, Entry>();
    const entry = (model: string, version: number): Entry => {
      const key = versionKey(model, version);
      let e = entries.get(key);
      if (!e) {
        const lastUsedAt = lastUse.get(key) ?? 0;
        e = { model, version, wanted: new Set(), listed: false, rate: 0, lastUsedAt, inFlight: 0 };
        entries.set(key, e);
      }
      return e;
    };
    wantedBy(entry, routes, desired, pins, demand);
    for (const r of requests) {
      const e = entry(r.model, r.version);
      e.rate = r.requests / (this.rateWindowMs / 1000);
      e.lastUsedAt = Math.max(e.lastUsedAt, r.lastBucketAt);
      lastUse.set(versionKey(r.model, r.version), e.lastUsedAt);
    }
    for (const hb of heartbeats) {
      for (const f of hb.inFlight) entry(f.model, f.version).inFlight += f.count;
    }
    const backends = this.backendsOf(surveys, ledgers, now);
    this.rollouts(rollouts, entry, backends);
    for (const b of backends) for (const r of b.resident) entry(r.model, r.version);
    const versions = await this.sized([...entries.values()], measured, backends);
    // A demand loads its version but does not make its model's other versions retirable.
    const managedModels = [...desired.keys()];
    return {
      snapshot: { now, backends: this.sizedBackends(backends, versions), versions, managedModels },
      surveys,
      demand,
      lastUse,
    };
  }

  /** Versions of active rollouts are wanted; incoming ones go where their predecessors are. */
  private rollouts(
    rollouts: Awaited<ReturnType<PlacementSources['activeRollouts']>>,
    entry: (model: string, version: number) => Entry,
    backends: SnapshotBackend[],
  ): void {
    for (const r of rollouts) {
      const { model } = r.plan;
      const before = r.fromVersions.filter((v) => v.weight > 0).map((v) => v.version);
      for (const v of r.fromVersions) entry(model, v.version).wanted.add('rollout');
      for (const v of incomingVersions(r)) {
        const e = entry(model, v);
        e.wanted.add('rollout');
        const hosts = backends
          .filter((b) => b.alive && b.budgetMb !== null)
          .filter((b) => b.resident.some((x) => x.model === model && before.includes(x.version)))
          .map((b) => b.address);
        if (hosts.length > 0) e.placeWith = hosts;
      }
    }
  }

  private backendsOf(
    surveys: BackendSurvey[],
    ledgers: Map<string, BackendLedger>,
    now: number,
  ): SnapshotBackend[] {
    return surveys.map((s) => {
      const ledger = ledgers.get(s.address);
      const since = new Map(ledger?.resident.map((r) => [versionKey(r.model, r.version), r]) ?? []);
      const resident = s.alive
        ? s.ready.map((r) => ({
            ...r,
            mb: 0,
            since: since.get(versionKey(r.model, r.version))?.since ?? now,
          }))
        : (ledger?.resident.map((r) => ({
            model: r.model,
            version: r.version,
            mb: r.mb,
            since: r.since,
          })) ?? []);
      return {
        address: s.address,
        alive: s.alive,
        // A dead backend advertises nothing: it keeps the budget it had while alive.
        budgetMb: this.budgetOf(s.address, s.advertisedBudgetMb ?? ledger?.budgetMb ?? undefined),
        resident,
        previously: [...since.keys()],
        known: ledger !== undefined,
      };
    });
  }

  /** Footprints: measured by a backend, else from the repository, else what the ledger counted. */
  private async sized(
    entries: Entry[],
    measured: Map<string, number>,
    backends: SnapshotBackend[],
  ): Promise<SnapshotVersion[]> {
    const counted = new Map<string, number>();
    for (const b of backends)
      for (const r of b.resident) if (r.mb > 0) counted.set(versionKey(r.model, r.version), r.mb);
    return Promise.all(
      entries.map(async ({ wanted, ...e }) => {
        const key = versionKey(e.model, e.version);
        const mb =
          measured.get(key) ??
          (await this.sources.footprint(e.model, e.version))?.mb ??
          counted.get(key) ??
          0;
        return { ...e, mb, wanted: [...wanted] };
      }),
    );
  }

  private sizedBackends(
    backends: SnapshotBackend[],
    versions: SnapshotVersion[],
  ): SnapshotBackend[] {
    const mb = new Map(versions.map((v) => [versionKey(v.model, v.version), v.mb]));
    return backends.map((b) => ({
      ...b,
      resident: b.resident.map((r) => ({
        ...r,
        mb: mb.get(versionKey(r.model, r.version)) ?? r.mb,
      })),
    }));
  }
}

/** Wanted: weight on a route, a shadow, a pinned job, a demand; listed: the desired set's. */
function wantedBy(
  entry: (model: string, version: number) => Entry,
  routes: Route[],
  desired: Map<string, number[]>,
  pins: { model: string; version: number }[],
  demand: PendingDemand[],
): void {
  for (const route of routes) {
    // Before budgets every version a route names stayed loaded (the reconciler's rule), for the
    // models a rollout touched.
    const listed = desired.has(route.model);
    for (const v of route.versions) {
      const e = entry(route.model, v.version);
      if (v.weight > 0) e.wanted.add('route');
      if (listed) e.listed = true;
    }
    if (route.shadow) {
      const e = entry(route.model, route.shadow.version);
      e.wanted.add('shadow');
      if (listed) e.listed = true;
    }
  }
  for (const [model, versions] of desired) for (const v of versions) entry(model, v).listed = true;
  for (const p of pins) entry(p.model, p.version).wanted.add('pin');
  for (const d of demand) entry(d.model, d.version).wanted.add('demand');
}
