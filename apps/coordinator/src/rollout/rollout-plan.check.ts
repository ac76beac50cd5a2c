import type { RolloutPlan } from '@mesh/rollout-contract';
import type { RolloutIssue } from './rollout.errors';
import { PlanRejectedError } from './rollout.errors';
import type { ModelCatalog, RouteStore, VersionSizes } from './rollout-ports';

/**
 * Checks a well-formed plan against the mesh: the version exists in the repository and its
 * manifest passes, the route exists, serves that model and does not serve only that version.
 * Returns the route's current versions (what a rollback restores). With `sizes`, a version
 * larger than every backend's memory budget is refused (MODEL_TOO_LARGE) once the plan is
 * otherwise fine.
 */
export class RolloutPlanValidator {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly routes: RouteStore,
    private readonly sizes?: VersionSizes,
  ) {}

  async validate(plan: RolloutPlan) {
    const issues: RolloutIssue[] = [];
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
    if (plan.shadow && route.shadow && route.shadow.version !== plan.toVersion) {
      issues.push({
        path: 'shadow',
        message: `route (${plan.tenant}, ${plan.task}) already mirrors to version ${route.shadow.version}; remove that shadow first`,
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
    await this.sizes?.refuseTooLarge(plan.model, plan.toVersion);
    return route.versions.map((v) => ({ ...v }));
  }
}
