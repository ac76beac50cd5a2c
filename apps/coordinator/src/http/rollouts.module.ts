import { Module } from '@nestjs/common';
import { AdminKeyGuard } from '@mesh/telemetry';
import { CLOCK } from '../coordinator-tokens';
import { RepositoryModelCatalog } from '../rollout/adapters/repository-model-catalog';
import { RoutingRouteStore } from '../rollout/adapters/routing-route-store';
import { PlacementModule } from '../placement/placement.module';
import { VersionSizeCheck } from '../placement/version-size.check';
import { RolloutPlanValidator } from '../rollout/rollout-plan.check';
import { RolloutUndoPlanner } from '../rollout/rollout-undo';
import type { Clock } from '../rollout/rollout-ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutService } from '../rollout/rollout.service';
import { RolloutsController } from './rollouts.controller';

/**
 * The rollout API: plans (and undos) checked against the catalog, the routing table and the
 * backends' memory budgets.
 */
@Module({
  imports: [PlacementModule],
  controllers: [RolloutsController],
  providers: [
    {
      provide: RolloutService,
      inject: [
        RolloutRepository,
        RepositoryModelCatalog,
        RoutingRouteStore,
        CLOCK,
        VersionSizeCheck,
      ],
      useFactory: (
        rollouts: RolloutRepository,
        catalog: RepositoryModelCatalog,
        routes: RoutingRouteStore,
        clock: Clock,
        sizes: VersionSizeCheck,
      ) =>
        new RolloutService(
          rollouts,
          new RolloutPlanValidator(catalog, routes, sizes),
          new RolloutUndoPlanner(routes, catalog, sizes),
          clock,
        ),
    },
    AdminKeyGuard,
  ],
  exports: [RolloutService],
})
export class RolloutsModule {}
