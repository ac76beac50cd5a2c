import type { VersionWeight } from '@mesh/routing';
import type { RolloutIssue } from './rollout.errors';
import { PlanRejectedError, RouteChangedError } from './rollout.errors';
import { sameWeights } from './rollout-weights';
import type { ModelCatalog, RouteStore, VersionSizes } from './rollout-ports';
import type { RolloutRecord } from './rollout.types';

export interface UndoOptions {
  /** Undo even though the route was edited after the rollout completed. */
  force: boolean;
  id: string;
  now: number;
}

/**
 * Turns a completed rollout into its undo: a new rollout whose final weights are the ones the
 * completed rollout started from. It goes through the same machine, so the versions it brings
 * back are loaded on every backend and routable on every router before any traffic moves, and
 * then one step of 100 % restores the old weights (an undo is wanted now, not in a window).
 */
export class RolloutUndoPlanner {
  constructor(
    private readonly routes: Pick<RouteStore, 'get' | 'changesSince'>,
    private readonly catalog: ModelCatalog,
    /** Refuses bringing back a version no backend's budget could hold. */
    private readonly sizes?: VersionSizes,
  ) {}

  async plan(done: RolloutRecord, options: UndoOptions): Promise<RolloutRecord> {
    const { tenant, task, model } = done.plan;
    const route = `(${tenant}, ${task})`;
    const snapshot = await this.routes.get(tenant, task);
    if (!snapshot) {
      throw new PlanRejectedError([{ path: 'task', message: `no route ${route} any more` }]);
    }
    if (snapshot.route.model !== model) {
      throw new PlanRejectedError([
        {
          path: 'model',
          message: `route ${route} serves model '${snapshot.route.model}' now, not '${model}'`,
        },
      ]);
    }
    const changes = (await this.routes.changesSince(tenant, task, done.appliedEpoch)).filter(
      (c) => c.who !== `rollout:${done.id}`,
    );
    if (changes.length > 0 && !options.force) throw new RouteChangedError(done.id, route, changes);

    const finalWeights = done.fromVersions.filter((v) => v.weight > 0).map((v) => ({ ...v }));
    const issues: RolloutIssue[] = [];
    if (sameWeights(positive(snapshot.route.versions), finalWeights)) {
      issues.push({
        path: 'finalWeights',
        message: `route ${route} already has the weights from before rollout ${done.id} (${describe(finalWeights)}); nothing to undo`,
      });
    }
    for (const v of finalWeights) {
      for (const message of await this.catalog.problems(model, v.version)) {
        issues.push({ path: 'finalWeights', message });
      }
    }
    if (issues.length > 0) throw new PlanRejectedError(issues);
    for (const v of finalWeights) await this.sizes?.refuseTooLarge(model, v.version);

    const current = snapshot.route.versions.map((v) => ({ ...v }));
    return {
      id: options.id,
      plan: {
        tenant,
        task,
        model,
        toVersion: heaviest(finalWeights),
        steps: [{ weight: 100, holdSeconds: 0 }],
        bakeSeconds: 0,
        onFailure: 'rollback',
      },
      state: 'pending',
      step: 0,
      fromVersions: current,
      weights: current,
      finalWeights,
      undoOf: done.id,
      appliedEpoch: 0,
      createdAt: options.now,
      enteredAt: options.now,
      timeline: [],
      rev: 0,
    };
  }
}

function positive(list: readonly VersionWeight[]): VersionWeight[] {
  return list.filter((v) => v.weight > 0);
}

/** The version that gets most of the restored traffic (the newest on a tie). */
function heaviest(list: readonly VersionWeight[]): number {
  const sorted = [...list].sort((a, b) => b.weight - a.weight || b.version - a.version);
  return sorted[0]?.version ?? 0;
}

function describe(list: readonly VersionWeight[]): string {
  return list.map((v) => `v${v.version}:${v.weight}`).join(' ');
}
