import type { RedisClient } from '@mesh/config';
import { RoutingTableRepository, type Route } from '@mesh/routing';
import { RepositoryModelCatalog } from '../rollout/adapters/repository-model-catalog';
import { RoutingRouteStore } from '../rollout/adapters/routing-route-store';
import { RolloutPlanValidator } from '../rollout/rollout-plan.check';
import { RolloutUndoPlanner } from '../rollout/rollout-undo';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutService } from '../rollout/rollout.service';
import type { FakeClock } from './fake-mesh';
import { questionTypeRoute } from './rollout-fixtures';

/**
 * The rollout service over real Redis under `prefix`: a routing table seeded with the
 * question-type route (v1) and the `intent` route (`intent-zh` v1, `intent` on top), plans
 * checked against the model repository at `repoDir`, no lease fence.
 */
export async function rolloutServiceRig(
  redis: RedisClient,
  prefix: string,
  repoDir: string,
  clock: FakeClock,
  intent: Partial<Route> = {},
) {
  const table = new RoutingTableRepository(redis, { keyPrefix: prefix });
  const intentRoute: Route = {
    tenant: '*',
    task: 'intent',
    model: 'intent-zh',
    versions: [{ version: 1, weight: 100 }],
    ...intent,
  };
  await table.seedIfAbsent({ tenants: [], routes: [questionTypeRoute(), intentRoute] }, 'test');
  const routes = new RoutingRouteStore(table, () => undefined);
  const catalog = new RepositoryModelCatalog(repoDir);
  const repository = new RolloutRepository(redis, prefix);
  const service = new RolloutService(
    repository,
    new RolloutPlanValidator(catalog, routes),
    new RolloutUndoPlanner(routes, catalog),
    clock,
  );
  return { service, repository, table };
}
