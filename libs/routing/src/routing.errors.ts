import { bulletList, countOf, issueLine, MeshError } from '@mesh/errors';

/** A problem at one place of a routing document, e.g. `routes[2].versions[0].weight`. */
export interface RoutingIssue {
  path: string;
  message: string;
}

export interface UnroutableReason {
  version: number;
  reason: string;
}

/** Invalid `mesh.yaml`, admin edit, or stored table; lists every issue with its field path. */
export class RoutingValidationError extends MeshError {
  readonly code = 'INVALID_ROUTING_CONFIG';

  constructor(
    readonly source: string,
    readonly issues: readonly RoutingIssue[],
  ) {
    super(
      `${source}: ${countOf(issues.length, 'problem')}:\n` +
        bulletList(issues.map((i) => issueLine(i.path, i.message))),
    );
  }
}

/** Missing, malformed or unknown credentials. Never says which tenants exist. */
export class UnauthenticatedError extends MeshError {
  readonly code = 'UNAUTHENTICATED';

  constructor(message = 'missing or invalid API key') {
    super(message);
  }
}

/** A valid credential that is not the admin key (or admin access is disabled). */
export class AdminForbiddenError extends MeshError {
  readonly code = 'ADMIN_FORBIDDEN';

  constructor() {
    super('admin access requires the admin API key');
  }
}

/** The task has no route visible to this tenant, or the tenant may not call it (same answer). */
export class RouteNotFoundError extends MeshError {
  readonly code = 'TASK_NOT_FOUND';

  constructor(readonly task: string) {
    super(`unknown task '${task}'`);
  }
}

/** Every weighted version of the route is excluded; `reasons` says why for each. */
export class NoRoutableVersionError extends MeshError {
  readonly code = 'BACKEND_UNAVAILABLE';

  constructor(
    readonly model: string,
    readonly reasons: readonly UnroutableReason[],
  ) {
    super(
      `no routable version of model '${model}': ` +
        (reasons.length === 0
          ? 'no version has a positive weight'
          : reasons.map((r) => `v${r.version}: ${r.reason}`).join('; ')),
    );
  }
}

export class RateLimitedError extends MeshError {
  readonly code = 'RATE_LIMITED';
  readonly retryAfterSeconds: number;

  constructor(readonly retryAfterMs: number) {
    super('rate limit exceeded');
    // Retry-After is whole seconds; never advertise 0 for a request that was refused.
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  }
}

export class TooManyInFlightError extends MeshError {
  readonly code = 'TOO_MANY_IN_FLIGHT';
  readonly retryAfterSeconds = 1;

  constructor(readonly limit: number) {
    super(`too many concurrent requests (limit ${limit})`);
  }
}

/** A compare-and-set change lost against a concurrent change (or a stale expected epoch). */
export class EpochConflictError extends MeshError {
  readonly code = 'EPOCH_CONFLICT';

  constructor(
    readonly expectedEpoch: number,
    readonly actualEpoch: number,
  ) {
    super(
      `routing table changed concurrently (expected epoch ${expectedEpoch}, is ${actualEpoch})`,
    );
  }
}

/** Edit or read of a table that was never seeded. */
export class RoutingTableMissingError extends MeshError {
  readonly code = 'ROUTING_TABLE_MISSING';

  constructor() {
    super('routing table is not seeded');
  }
}

/** Admin delete/read of a route or tenant that does not exist. */
export class RoutingEntryNotFoundError extends MeshError {
  readonly code = 'NOT_FOUND';

  constructor(
    readonly kind: 'route' | 'tenant',
    readonly id: string,
  ) {
    super(`${kind} '${id}' not found`);
  }
}

/** A write by a coordinator whose leader lease (fencing token) is no longer current. */
export class FencedWriteError extends MeshError {
  readonly code = 'FENCED';

  constructor(readonly token: number) {
    super(`write refused: fencing token ${token} no longer holds the leader lease`);
  }
}

/**
 * A route edit names a model or version the repository cannot serve (422). `code` is the
 * first problem's; `problems` lists all. Admin edits may override with `?force=true`.
 */
export class RouteEditRejectedError extends MeshError {
  readonly code: string;

  readonly problems: readonly { code: string; path: string; message: string }[];

  constructor(listed: readonly { code: string; path: string; message: string }[]) {
    // A version too large for every backend's budget leads: it is the answer's code (422
    // MODEL_TOO_LARGE), because no wait or force can make it servable; the others still list.
    const problems = [
      ...listed.filter((p) => p.code === 'MODEL_TOO_LARGE'),
      ...listed.filter((p) => p.code !== 'MODEL_TOO_LARGE'),
    ];
    super(
      problems.length === 1 && problems[0]
        ? `route refused: ${problems[0].path}: ${problems[0].message}`
        : `route refused: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
    this.problems = problems;
    this.code = problems[0]?.code ?? 'INVALID_ROUTING_CONFIG';
  }
}
