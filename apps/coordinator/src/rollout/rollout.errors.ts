import { countOf, issueLine, MeshError } from '@mesh/errors';

/** A problem with one field of a plan or request, e.g. `steps[2].weight`. */
export interface RolloutIssue {
  path: string;
  message: string;
}

function describeIssues(source: string, issues: readonly RolloutIssue[]): string {
  const list = issues.map((i) => issueLine(i.path, i.message)).join('; ');
  return `${source}: ${countOf(issues.length, 'problem')}: ${list}`;
}

/** The plan document itself is malformed (types, ranges, the last step not 100, a bad cron). */
export class InvalidPlanError extends MeshError {
  readonly code = 'INVALID_PLAN';

  constructor(readonly issues: readonly RolloutIssue[]) {
    super(describeIssues('rollout plan', issues));
  }
}

/** A well-formed plan the mesh cannot run (unknown model or version, broken manifest, no route). */
export class PlanRejectedError extends MeshError {
  readonly code = 'PLAN_REJECTED';

  constructor(readonly issues: readonly RolloutIssue[]) {
    super(describeIssues('rollout plan', issues));
  }
}

/** Another rollout of the same (tenant, task) has not finished. */
export class RolloutConflictError extends MeshError {
  readonly code = 'ROLLOUT_CONFLICT';

  constructor(
    readonly tenant: string,
    readonly task: string,
    readonly activeId: string,
  ) {
    super(`rollout ${activeId} of (${tenant}, ${task}) is still active; one at a time per route`);
  }
}

export class RolloutNotFoundError extends MeshError {
  readonly code = 'ROLLOUT_NOT_FOUND';

  constructor(readonly id: string) {
    super(`no rollout '${id}'`);
  }
}

/** An operator command that makes no sense in the rollout's current state. */
export class InvalidCommandError extends MeshError {
  readonly code = 'INVALID_COMMAND';

  constructor(command: string, state: string) {
    super(`cannot ${command} a rollout that is ${state}`);
  }
}

/** A record save lost a race with another writer (retry after reading again). */
export class RevisionConflictError extends MeshError {
  readonly code = 'REVISION_CONFLICT';

  constructor(readonly id: string) {
    super(`rollout ${id} changed meanwhile`);
  }
}

/** An undo refused because the route was edited after the rollout completed. */
export class RouteChangedError extends MeshError {
  readonly code = 'ROUTE_CHANGED';

  constructor(
    readonly rolloutId: string,
    readonly route: string,
    readonly changes: readonly { epoch: number; who: string; action: string }[],
  ) {
    const list = changes.map((c) => `epoch ${c.epoch} ${c.action} by ${c.who}`).join(', ');
    super(
      `route ${route} changed since rollout ${rolloutId} completed (${list}); undo with force to restore its previous weights anyway`,
    );
  }
}
