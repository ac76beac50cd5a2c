import {
  formatPath,
  RouteEditRejectedError,
  RoutingEntryNotFoundError,
  RoutingTableMissingError,
  RoutingValidationError,
  type RouteEditValidator,
  type RoutingTableRepository,
  type Route,
} from '@mesh/routing';
import { z } from 'zod';
import { RolloutConflictError } from '../rollout/rollout.errors';
import type { RolloutRepository } from '../rollout/rollout.repository';

/** `PUT /v1/dashboard/routes/:tenant/:task/weights`: the new weights and the epoch they were read at. */
export const weightsEditSchema = z
  .object({
    expectedEpoch: z.number().int().nonnegative(),
    versions: z
      .array(
        z
          .object({
            version: z.number().int().nonnegative(),
            weight: z.number().int().min(0).max(100),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

export type WeightsEdit = z.infer<typeof weightsEditSchema>;

export interface WeightsEditResult {
  epoch: number;
  route: Route;
}

/**
 * Weight edits from the dashboard. The same checks as the router's admin API (the lib's
 * RouteEditValidator: 422 for a version the repository cannot serve), then one
 * compare-and-set on the epoch the operator saw, audited under `who`. A route a rollout is
 * driving is refused (409): the rollout would overwrite the edit at its next step.
 */
export class RouteWeightsEditor {
  constructor(
    private readonly table: RoutingTableRepository,
    private readonly validator: Pick<RouteEditValidator, 'check'>,
    private readonly rollouts: Pick<RolloutRepository, 'activeId'>,
  ) {}

  async apply(
    tenant: string,
    task: string,
    body: unknown,
    who: string,
  ): Promise<WeightsEditResult> {
    const edit = parseWeightsEdit(body);
    const current = await this.table.load();
    if (!current) throw new RoutingTableMissingError();
    const route = current.routes.find((r) => r.tenant === tenant && r.task === task);
    if (!route) throw new RoutingEntryNotFoundError('route', `${tenant}/${task}`);
    const activeId = await this.rollouts.activeId(tenant, task);
    if (activeId) throw new RolloutConflictError(tenant, task, activeId);
    const next: Route = { ...route, versions: edit.versions };
    const problems = await this.validator.check(next);
    if (problems.length > 0) throw new RouteEditRejectedError(problems);
    const { epoch } = await this.table.upsertRoute(next, {
      who,
      expectedEpoch: edit.expectedEpoch,
    });
    return { epoch, route: next };
  }
}

function parseWeightsEdit(body: unknown): WeightsEdit {
  const parsed = weightsEditSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new RoutingValidationError(
    'weights edit',
    parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
  );
}
