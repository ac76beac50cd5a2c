import { Module } from '@nestjs/common';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import type { RedisClient } from '@mesh/config';
import { PlacementLedgerReader } from '@mesh/placement';
import { RouteEditValidator, RoutingTableCache, RoutingTableRepository } from '@mesh/routing';
import { AdminKeyGuard } from '@mesh/telemetry';
import type { Logger } from 'pino';
import { RouteSelector } from '../catalog/route-selector';
import { RoutingTableModule } from '../catalog/routing-table.module';
import type { RouterConfig } from '@mesh/app-config';
import { LOGGER, REDIS, ROUTER_CONFIG } from '../router-tokens';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { RouteEditChecker } from './route-edit.check';

type AdminDeps = [
  RouterConfig,
  Logger,
  RoutingTableRepository,
  RoutingTableCache,
  RouteSelector,
  VersionCatalog,
  KServeBackends,
  RedisClient,
];

function adminService(
  ...[config, logger, repo, routes, selector, catalog, backends, redis]: AdminDeps
): AdminService {
  // Footprints are checked against the budgets the placer last wrote (none known: no refusal).
  const ledger = new PlacementLedgerReader(redis, config.REDIS_KEY_PREFIX);
  const validator = new RouteEditValidator(config.MODEL_REPOSITORY, {
    largestBudgetMb: () => ledger.largestBudgetMb(),
  });
  return new AdminService(repo, routes, selector, {
    meshConfigFile: config.MESH_CONFIG,
    actor: config.ADMIN_ACTOR,
    logger,
    checker: new RouteEditChecker(validator, catalog, backends, selector),
  });
}

/** The admin API: routing-table reads and checked edits, behind the admin key. */
@Module({
  imports: [RoutingTableModule],
  controllers: [AdminController],
  providers: [
    {
      provide: AdminService,
      inject: [
        ROUTER_CONFIG,
        LOGGER,
        RoutingTableRepository,
        RoutingTableCache,
        RouteSelector,
        VersionCatalog,
        KServeBackends,
        REDIS,
      ],
      useFactory: adminService,
    },
    AdminKeyGuard,
  ],
})
export class AdminModule {}
