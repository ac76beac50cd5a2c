import { type DynamicModule, Module } from '@nestjs/common';
import { type RedisClient, redisEndpointOf, STORE_COMMAND_TIMEOUT_MS } from '@mesh/config';
import { JobRepository } from '@mesh/jobs';
import type { KServeClient } from '@mesh/kserve';
import { PlacementAudit, PlacementLedgerReader } from '@mesh/placement';
import { RouteEditValidator, RoutingTableRepository } from '@mesh/routing';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/signals';
import { AdminAuthenticator } from '@mesh/tenancy';
import { createMetricsRegistry, RedisHealthModule, RedisModule } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { CoordinatorConfig } from '@mesh/app-config';
import { CoordinatorCoreModule } from './coordinator-core.module';
import {
  CLOCK,
  COORDINATOR_CONFIG,
  HEALTH_REDIS,
  KSERVE_CLIENTS,
  PLACEMENT_SUBSCRIBER,
  REDIS_CLIENT,
} from './coordinator-tokens';
import { DashboardModule, type DashboardDeps } from './dashboard/dashboard.module';
import { RolloutsModule } from './http/rollouts.module';
import { LeaderModule } from './leader/leader.module';
import type { Clock } from './rollout/rollout-ports';
import { RolloutRepository } from './rollout/rollout.repository';
import { RolloutService } from './rollout/rollout.service';

/**
 * The version-switch coordinator: the rollout API, the leader loop, the dashboard, health and
 * metrics. Shutdown: the leader loop stops and hands back its lease, then Redis closes.
 */
@Module({})
export class CoordinatorModule {
  static register(config: CoordinatorConfig, logger: Logger): DynamicModule {
    const registry = createMetricsRegistry('coordinator');
    return {
      module: CoordinatorModule,
      imports: [
        RedisModule.register({
          endpoint: redisEndpointOf(config),
          connections: [
            {
              token: REDIS_CLIENT,
              role: 'commands',
              name: 'coordinator',
              // API calls answer 503 STORE_UNAVAILABLE during an outage instead of hanging; the
              // leader's tick fails the same way and is retried on the next one.
              commandTimeoutMs: STORE_COMMAND_TIMEOUT_MS,
            },
            { token: HEALTH_REDIS, role: 'commands', name: 'coordinator-health' },
            // Demand announcements wake the leader's placer between reconciles.
            { token: PLACEMENT_SUBSCRIBER, role: 'subscriber', name: 'coordinator-placement' },
          ],
        }),
        CoordinatorCoreModule.register(config, logger, registry),
        RedisHealthModule.register('coordinator', HEALTH_REDIS, registry),
        LeaderModule,
        RolloutsModule,
        DashboardModule.registerAsync([RolloutsModule], {
          inject: [
            AdminAuthenticator,
            CLOCK,
            COORDINATOR_CONFIG,
            KSERVE_CLIENTS,
            REDIS_CLIENT,
            ...DASHBOARD_STORES,
          ],
          useFactory: dashboardDeps,
        }),
      ],
    };
  }
}

const DASHBOARD_STORES = [
  RoutingTableRepository,
  RouterHeartbeatRepository,
  RedisTrafficSignalSource,
  RolloutService,
  RolloutRepository,
  JobRepository,
];

function dashboardDeps(
  auth: AdminAuthenticator,
  clock: Clock,
  config: CoordinatorConfig,
  backends: readonly KServeClient[],
  redis: RedisClient,
  table: RoutingTableRepository,
  heartbeats: RouterHeartbeatRepository,
  signals: RedisTrafficSignalSource,
  rollouts: RolloutService,
  rolloutRepository: RolloutRepository,
  jobs: JobRepository,
): DashboardDeps {
  const ledger = new PlacementLedgerReader(redis, config.REDIS_KEY_PREFIX);
  const audit = new PlacementAudit(redis, config.REDIS_KEY_PREFIX);
  return {
    auth,
    clock,
    table,
    heartbeats,
    signals,
    // A weight edit from the dashboard is refused like one through the routers' admin API when
    // the version is too large for every backend's budget (422 MODEL_TOO_LARGE).
    routeValidator: new RouteEditValidator(config.MODEL_REPOSITORY, {
      largestBudgetMb: () => ledger.largestBudgetMb(),
    }),
    rollouts,
    rolloutRepository,
    jobs,
    backends,
    backendDeadlineMs: config.KSERVE_PROBE_DEADLINE_MS,
    placement: { ledgers: () => ledger.all(), recent: (n) => audit.recent(n) },
  };
}
