import { type DynamicModule, Module } from '@nestjs/common';
import { redisEndpointOf, STORE_COMMAND_TIMEOUT_MS, type RedisClient } from '@mesh/config';
import { KServeBackends, type VersionCatalog } from '@mesh/inference';
import { RoutingTableCache } from '@mesh/routing';
import {
  HealthController,
  MetricsController,
  READINESS_CHECKS,
  RedisModule,
  RedisPingCheck,
} from '@mesh/telemetry';
import type { Logger } from 'pino';
import { AdminModule } from './admin/admin.module';
import { PredictModule } from './predict/predict.module';
import { RoutingTableModule } from './catalog/routing-table.module';
import { SignalsModule } from './signals/signals.module';
import { JobsModule } from './jobs/jobs.module';
import type { RouterConfig } from '@mesh/app-config';
import { RouterCoreModule } from './router-core.module';
import { BackendReadyCheck, RedisReadyCheck, RoutesLoadedCheck } from './router-readiness';
import {
  JOB_CHANGES_SUBSCRIBER,
  PLACEMENT_SUBSCRIBER,
  REDIS,
  ROUTES_SUBSCRIBER,
} from './router-tokens';

/**
 * The router: tenants, routing, admission, preprocessing and inference over KServe v2, the
 * admin and bulk-job APIs. Shutdown: streams drain, the lifecycle and job feed stop, then
 * RedisModule closes the connections.
 */
@Module({})
export class RouterModule {
  static register(config: RouterConfig, logger: Logger, catalog: VersionCatalog): DynamicModule {
    return {
      module: RouterModule,
      imports: [
        RedisModule.register({
          endpoint: redisEndpointOf(config),
          connections: [
            {
              token: REDIS,
              role: 'commands',
              name: 'router',
              // Predictions do not wait on Redis (cached routing table, in-memory insurance limiter).
              commandTimeoutMs: STORE_COMMAND_TIMEOUT_MS,
            },
            { token: ROUTES_SUBSCRIBER, role: 'subscriber', name: 'router-routes' },
            { token: JOB_CHANGES_SUBSCRIBER, role: 'subscriber', name: 'router-job-changes' },
            { token: PLACEMENT_SUBSCRIBER, role: 'subscriber', name: 'router-placement' },
          ],
        }),
        RouterCoreModule.register(config, logger, catalog),
        RoutingTableModule,
        SignalsModule,
        PredictModule,
        AdminModule,
        JobsModule,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        {
          provide: READINESS_CHECKS,
          inject: [REDIS, RoutingTableCache, KServeBackends],
          useFactory: (redis: RedisClient, routes: RoutingTableCache, backends: KServeBackends) => [
            new RedisReadyCheck(new RedisPingCheck(redis), routes),
            new RoutesLoadedCheck(routes),
            new BackendReadyCheck(backends),
          ],
        },
      ],
    };
  }
}
