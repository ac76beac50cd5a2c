/** A problem with one field of a plan or request, e.g. `steps[2].weight`. */
export interface RolloutIssue {
  path: string;
  message: string;
}

/** Base of the coordinator's domain errors; the HTTP edge maps `code` to a status. */
export abstract class RolloutError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

function describeIssues(source: string, issues: readonly RolloutIssue[]): string {
  const head = `${source}: ${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  return `${head}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`;
}

/** The plan document itself is malformed (types, ranges, the last step not 100, a bad cron). */
export class InvalidPlanError extends RolloutError {
  readonly code = 'INVALID_PLAN';

  constructor(readonly issues: readonly RolloutIssue[]) {
    super(describeIssues('rollout plan', issues));
  }
}

/** A well-formed plan the mesh cannot run (unknown model or version, broken manifest, no route). */
export class PlanRejectedError extends RolloutError {
  readonly code = 'PLAN_REJECTED';

  constructor(readonly issues: readonly RolloutIssue[]) {
    super(describeIssues('rollout plan', issues));
  }
}

/** Another rollout of the same (tenant, task) has not finished. */
export class RolloutConflictError extends RolloutError {
  readonly code = 'ROLLOUT_CONFLICT';

  constructor(
    readonly tenant: string,
    readonly task: string,
    readonly activeId: string,
  ) {
    super(`rollout ${activeId} of (${tenant}, ${task}) is still active; one at a time per route`);
  }
}

export class RolloutNotFoundError extends RolloutError {
  readonly code = 'ROLLOUT_NOT_FOUND';

  constructor(readonly id: string) {
    super(`no rollout '${id}'`);
  }
}

/** An operator command that makes no sense in the rollout's current state. */
export class InvalidCommandError extends RolloutError {
  readonly code = 'INVALID_COMMAND';

  constructor(command: string, state: string) {
    super(`cannot ${command} a rollout that is ${state}`);
  }
}

/** A record save lost a race with another writer (retry after reading again). */
export class RevisionConflictError extends RolloutError {
  readonly code = 'REVISION_CONFLICT';

  constructor(readonly id: string) {
    super(`rollout ${id} changed meanwhile`);
  }
}
