import { Module } from '@nestjs/common';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { RouteEditValidator, RoutingTableCache, RoutingTableRepository } from '@mesh/routing';
import { AdminKeyGuard } from '@mesh/telemetry';
import type { Logger } from 'pino';
import { RouteSelector } from '../core/route.selector';
import { RoutingTableModule } from '../core/routing-table.module';
import type { RouterConfig } from '../router.config';
import { LOGGER, ROUTER_CONFIG } from '../router.tokens';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { RouteEditChecker } from './route-edit.checker';

type AdminDeps = [
  RouterConfig,
  Logger,
  RoutingTableRepository,
  RoutingTableCache,
  RouteSelector,
  VersionCatalog,
  KServeBackends,
];

function adminService(
  ...[config, logger, repo, routes, selector, catalog, backends]: AdminDeps
): AdminService {
  const validator = new RouteEditValidator(config.MODEL_REPOSITORY);
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
      ],
      useFactory: adminService,
    },
    AdminKeyGuard,
  ],
})
export class AdminModule {}
