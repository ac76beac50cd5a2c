import { Module } from '@nestjs/common';
import { AdminKeyGuard } from '@mesh/telemetry';
import { CLOCK } from '../coordinator.tokens';
import { RepositoryModelCatalog } from '../fleet/repository-model.catalog';
import { RoutingRouteStore } from '../fleet/routing.route-store';
import { RolloutPlanValidator } from '../rollout/rollout-plan.validator';
import { RolloutUndoPlanner } from '../rollout/rollout-undo';
import type { Clock } from '../rollout/rollout.ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutService } from '../rollout/rollout.service';
import { RolloutsController } from './rollouts.controller';

/** The rollout API: plans (and undos) checked against the catalog and the routing table. */
@Module({
  controllers: [RolloutsController],
  providers: [
    {
      provide: RolloutService,
      inject: [RolloutRepository, RepositoryModelCatalog, RoutingRouteStore, CLOCK],
      useFactory: (
        rollouts: RolloutRepository,
        catalog: RepositoryModelCatalog,
        routes: RoutingRouteStore,
        clock: Clock,
      ) =>
        new RolloutService(
          rollouts,
          new RolloutPlanValidator(catalog, routes),
          new RolloutUndoPlanner(routes, catalog),
          clock,
        ),
    },
    AdminKeyGuard,
  ],
  exports: [RolloutService],
})
export class RolloutsModule {}
