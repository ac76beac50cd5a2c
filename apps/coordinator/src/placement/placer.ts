import { performance } from 'node:perf_hooks';
import { versionKey, type BackendLedger, type PlacementDecision } from '@mesh/placement';
import type { Logger } from 'pino';
import type { Clock } from '../rollout/rollout-ports';
import type { PlacementPolicy } from './placement-policy';
import type { PlannedChange } from './placement-policy.types';
import type { PassInputs, PlacementSnapshotReader } from './placement-snapshot-reader';
import type { CarriedOut } from './placement-policy.types';
import { PlacementExecutor, type Residency } from './placement-executor';
import type { PlacementMetrics } from './placement.metrics';
import type { PlacementBackends, PlacementSources } from './placement-ports';
import type { PlacementRepository } from './placement.repository';
import { placementSpan, tracedChanges } from './placement.trace';

export interface PlacerDeps {
  reader: PlacementSnapshotReader;
  policy: PlacementPolicy;
  backends: PlacementBackends;
  sources: Pick<PlacementSources, 'expectedSha'>;
  repository: PlacementRepository;
  /** Clears a demand once its version is READY (PlacementDemand). */
  demand: { clear(model: string, version: number): Promise<void> };
  metrics: PlacementMetrics;
  clock: Clock;
  logger: Logger;
}

/**
 * The leader's placer: each pass reads a snapshot, lets the policy decide, carries the
 * decisions out, and records them (audit stream, log, metrics, ledger). Passes never overlap;
 * an ask while one waits to start joins it. Demands are cleared, and their loads announced,
 * once the version is READY with the sha its manifest pins.
 */
export class Placer {
  private tail: Promise<unknown> = Promise.resolve();
  private queued: Promise<number> | undefined;
  private readonly executor: PlacementExecutor;
  /** After the last pass: backend → budget (null: none), and what each holds. */
  private budgets = new Map<string, number | null>();
  private residency: Residency = new Map();
  private skips = new Map<string, string>();
  /** `model@version` → MB as the last pass counted it. */
  private footprints = new Map<string, number>();

  constructor(private readonly deps: PlacerDeps) {
    this.executor = new PlacementExecutor(deps.backends, deps.logger);
  }

  /** Runs a pass (or joins the one waiting to start); resolves to the number of loads done. */
  reconcile(): Promise<number> {
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = undefined;
      return this.pass();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Budgets per backend as the last pass found them (runs one first if none ran yet). */
  async budgetsByBackend(): Promise<Map<string, number | null>> {
    if (this.budgets.size === 0) await this.reconcile();
    return new Map(this.budgets);
  }

  private budgetedSet(): Set<string> {
    return new Set([...this.budgets].filter(([, mb]) => mb !== null).map(([a]) => a));
  }

  /** Backends the last pass left `version` of `model` resident on. */
  hostsOf(model: string, version: number): string[] {
    return [...this.residency]
      .filter(([, models]) => models.get(model)?.has(version))
      .map(([address]) => address);
  }

  /** Why the last pass could not place the version, if it could not. */
  skipReason(model: string, version: number): string | undefined {
    return this.skips.get(versionKey(model, version));
  }

  /**
   * Retires every version of `model` outside `keep` on the given backends now (a rollout's
   * drain: it already waited for in-flight requests and pinned jobs), freeing their budget.
   */
  retire(model: string, keep: readonly number[], addresses: readonly string[]): Promise<void> {
    const run = this.tail.then(async () => {
      const startedAt = performance.now();
      const now = this.deps.clock.now();
      const changes: PlannedChange[] = [];
      for (const address of addresses) {
        for (const version of this.residency.get(address)?.get(model) ?? []) {
          if (keep.includes(version)) continue;
          const mb = this.footprints.get(versionKey(model, version)) ?? 0;
          changes.push({
            action: 'unload',
            model,
            version,
            backend: address,
            reason: 'retire',
            mb,
          });
        }
      }
      const span = placementSpan('placement.retire', startedAt, changes, { 'mesh.model': model });
      const done = await tracedChanges(span, () =>
        this.executor.execute(changes, this.residency, this.budgetedSet(), span),
      );
      await this.record(done, now);
      const failed = done.find((c) => c.error);
      if (failed)
        throw new Error(
          `retiring ${model} v${failed.version} on ${failed.backend} failed: ${failed.error}`,
        );
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async pass(): Promise<number> {
    const startedAt = performance.now();
    const now = this.deps.clock.now();
    const inputs = await this.deps.reader.read(now);
    const plan = this.deps.policy.plan(inputs.snapshot);
    this.noteSkips(plan.skipped);
    const residency = residencyOf(inputs);
    this.budgets = new Map(inputs.snapshot.backends.map((b) => [b.address, b.budgetMb]));
    const span = placementSpan('placement.pass', startedAt, plan.changes, {
      'mesh.placement.skipped': plan.skipped.length,
      'mesh.backends': inputs.snapshot.backends.length,
    });
    const done = await tracedChanges(span, async () => {
      const carried = await this.executor.execute(
        plan.changes,
        residency,
        this.budgetedSet(),
        span,
      );
      this.residency = residency;
      this.footprints = new Map(
        inputs.snapshot.versions.map((v) => [versionKey(v.model, v.version), v.mb]),
      );
      await this.record(carried, now);
      await this.refineFootprints(carried);
      // A copy's residency starts when its load finished, not when the pass began: a load that
      // outlasts the minimum residency would otherwise be evictable before anyone could use it.
      const loadedAt = this.deps.clock.now();
      await this.deps.repository.writeLedgers(this.ledgers(inputs, carried, now, loadedAt));
      await this.deps.repository.recordLastUse(inputs.lastUse);
      await this.answerDemand(inputs);
      return carried;
    });
    return done.filter((c) => c.action === 'load' && !c.error).length;
  }

  private async record(done: readonly CarriedOut[], at: number): Promise<void> {
    for (const c of done) {
      const decision: PlacementDecision = { at, ...c, ...(c.error ? { error: c.error } : {}) };
      this.deps.metrics.decided(decision);
      const log = { event: 'placement', ...decision };
      if (c.error) this.deps.logger.warn(log, `placement ${c.action} failed`);
      else this.deps.logger.info(log, `placement ${c.action} (${c.reason})`);
      await this.deps.repository.audit(decision);
    }
  }

  /** What a backend measured after a load refines the footprint for the next passes. */
  private async refineFootprints(done: readonly CarriedOut[]): Promise<void> {
    for (const c of done.filter((x) => x.action === 'load' && !x.error)) {
      const mb = await this.deps.backends.reportedMb(c.model, c.version, c.backend);
      if (mb !== undefined && mb !== c.mb)
        await this.deps.repository.setFootprint(c.model, c.version, mb);
    }
  }

  private ledgers(
    inputs: PassInputs,
    done: readonly CarriedOut[],
    now: number,
    loadedAt: number,
  ): BackendLedger[] {
    const mb = new Map(inputs.snapshot.versions.map((v) => [versionKey(v.model, v.version), v.mb]));
    const loaded = new Set(
      done
        .filter((c) => c.action === 'load' && !c.error)
        .map((c) => `${c.backend}\t${versionKey(c.model, c.version)}`),
    );
    return inputs.snapshot.backends
      .filter((b) => b.alive)
      .map((b) => {
        const since = new Map(b.resident.map((r) => [versionKey(r.model, r.version), r.since]));
        const resident = [...(this.residency.get(b.address) ?? [])].flatMap(([model, versions]) =>
          [...versions]
            .sort((x, y) => x - y)
            .map((version) => {
              const key = versionKey(model, version);
              return {
                model,
                version,
                mb: mb.get(key) ?? 0,
                since: loaded.has(`${b.address}\t${key}`) ? loadedAt : (since.get(key) ?? now),
                lastUsedAt: inputs.lastUse.get(key) ?? 0,
              };
            }),
        );
        const usedMb = resident.reduce((sum, r) => sum + r.mb, 0);
        this.deps.metrics.ledger({
          backend: b.address,
          budgetMb: b.budgetMb,
          usedMb,
          resident,
          at: now,
        });
        return { backend: b.address, budgetMb: b.budgetMb, usedMb, resident, at: now };
      });
  }

  /** Clears each demand whose version is READY (right sha) somewhere, and announces where. */
  private async answerDemand(inputs: PassInputs): Promise<void> {
    for (const d of inputs.demand) {
      const hosts = this.hostsOf(d.model, d.version);
      if (hosts.length === 0) continue;
      const expected = await this.deps.sources
        .expectedSha(d.model, d.version)
        .catch(() => undefined);
      const ready = (await this.deps.backends.readiness(d.model, d.version, hosts)).filter(
        (b) => b.ready && (expected === undefined || b.sha === expected),
      );
      if (ready.length === 0) continue;
      await this.deps.demand.clear(d.model, d.version);
      for (const b of ready)
        await this.deps.repository.announceLoaded(d.model, d.version, b.address);
    }
  }

  /** Logs each version that could not be placed, once per distinct reason. */
  private noteSkips(skipped: readonly { model: string; version: number; reason: string }[]): void {
    const next = new Map<string, string>();
    for (const s of skipped) {
      const key = versionKey(s.model, s.version);
      next.set(key, s.reason);
      if (this.skips.get(key) !== s.reason) {
        this.deps.logger.warn(
          { event: 'placement_skipped', ...s },
          `cannot place ${key}: ${s.reason}`,
        );
      }
    }
    this.skips = next;
  }
}

/** The alive backends' READY versions, per model. */
function residencyOf(inputs: PassInputs): Residency {
  const out: Residency = new Map();
  for (const s of inputs.surveys.filter((x) => x.alive)) {
    const models = new Map<string, Set<number>>();
    for (const r of s.ready)
      models.set(r.model, new Set([...(models.get(r.model) ?? []), r.version]));
    out.set(s.address, models);
  }
  return out;
}
