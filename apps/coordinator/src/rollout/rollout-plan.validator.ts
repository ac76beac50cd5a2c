import type { RolloutIssue } from './rollout.errors';
import { PlanRejectedError } from './rollout.errors';
import type { ModelCatalog, RouteStore } from './rollout.ports';
import type { RolloutPlan } from './rollout.types';

/**
 * Checks a well-formed plan against the mesh: the version exists in the repository and its
 * manifest passes, the route exists, serves that model and does not serve only that version.
 * Returns the route's current versions (what a rollback restores).
 */
export class RolloutPlanValidator {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly routes: RouteStore,
  ) {}

  async validate(plan: RolloutPlan) {
    const issues: RolloutIssue[] = [];
    if (plan.shadow) {
      issues.push({
        path: 'shadow',
        message: 'shadow comparison is not supported yet; remove it (steps and gates still apply)',
      });
    }
    for (const message of await this.catalog.problems(plan.model, plan.toVersion)) {
      issues.push({ path: message.startsWith('model ') ? 'model' : 'toVersion', message });
    }
    const snapshot = await this.routes.get(plan.tenant, plan.task);
    if (!snapshot) {
      issues.push({
        path: 'task',
        message: `no route for tenant '${plan.tenant}' and task '${plan.task}'`,
      });
      throw new PlanRejectedError(issues);
    }
    const { route } = snapshot;
    if (route.model !== plan.model) {
      issues.push({
        path: 'model',
        message: `route (${plan.tenant}, ${plan.task}) serves model '${route.model}', not '${plan.model}'`,
      });
    }
    const others = route.versions.filter((v) => v.version !== plan.toVersion && v.weight > 0);
    if (route.model === plan.model && others.length === 0) {
      issues.push({
        path: 'toVersion',
        message: `route (${plan.tenant}, ${plan.task}) already sends all traffic to version ${plan.toVersion}`,
      });
    }
    if (issues.length > 0) throw new PlanRejectedError(issues);
    return route.versions.map((v) => ({ ...v }));
  }
}
