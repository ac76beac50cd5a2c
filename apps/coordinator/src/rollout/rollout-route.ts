import type { VersionWeight } from '@mesh/routing';
import { incomingVersions, sameWeights } from './rollout-weights';
import type { RolloutPorts } from './rollout-ports';
import type { RolloutRecord } from './rollout.types';

/**
 * The plan's route and model as one rollout writes them. Every write is compared with what is
 * there first, so repeating one after a crash writes nothing twice.
 */
export class RolloutRoute {
  constructor(private readonly ports: RolloutPorts) {}

  /** Commits `versions` on the plan's route unless they are already there (idempotent). */
  async apply(r: RolloutRecord, versions: VersionWeight[]): Promise<void> {
    const { tenant, task } = r.plan;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    if (sameWeights(snapshot.route.versions, versions)) {
      r.appliedEpoch = Math.max(r.appliedEpoch, snapshot.epoch);
    } else {
      r.appliedEpoch = await this.ports.routes.setVersions(tenant, task, versions, {
        expectedEpoch: snapshot.epoch,
        who: `rollout:${r.id}`,
      });
    }
    r.weights = versions.map((v) => ({ ...v }));
  }

  /** Puts the shadow on the route unless it is there already; returns the percent mirrored. */
  async ensureShadow(r: RolloutRecord): Promise<number> {
    const { tenant, task, toVersion, shadow } = r.plan;
    const percent = Math.round((shadow?.sampleRate ?? 0) * 10_000) / 100;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    const current = snapshot.route.shadow;
    if (current?.version === toVersion && (current.percent ?? 100) === percent) return percent;
    r.appliedEpoch = await this.ports.routes.setShadow(
      tenant,
      task,
      { version: toVersion, percent },
      { expectedEpoch: snapshot.epoch, who: `rollout:${r.id}` },
    );
    return percent;
  }

  /** Takes this rollout's shadow off the route (no write when it is not there). */
  async clearShadow(r: RolloutRecord): Promise<void> {
    const { tenant, task, toVersion } = r.plan;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (snapshot?.route.shadow?.version !== toVersion) return;
    r.appliedEpoch = await this.ports.routes.setShadow(tenant, task, undefined, {
      expectedEpoch: snapshot.epoch,
      who: `rollout:${r.id}`,
    });
  }

  /**
   * Versions the model must serve: every version a route names, plus the incoming ones (the
   * new version; an undo's versions brought back).
   */
  async servingSet(r: RolloutRecord, includeOld = true): Promise<number[]> {
    const { model, tenant, task } = r.plan;
    const set = new Set<number>(incomingVersions(r));
    for (const route of await this.ports.routes.routesOfModel(model)) {
      const own = route.tenant === tenant && route.task === task;
      if (own && !includeOld) continue;
      for (const v of route.versions) set.add(v.version);
      if (route.shadow) set.add(route.shadow.version);
    }
    if (includeOld) for (const v of r.fromVersions) set.add(v.version);
    return [...set].sort((a, b) => a - b);
  }
}
