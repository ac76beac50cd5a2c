import { hostname } from 'node:os';
import { type DynamicModule, Module } from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import { JobPinReader, JobRepository } from '@mesh/jobs';
import {
  createChannelCredentials,
  KServeClient,
  kservePoolOptionsFromEnv,
  loadInferencePackage,
} from '@mesh/kserve';
import {
  AdminAuthenticator,
  RedisTrafficSignalSource,
  RouteEditValidator,
  RouterHeartbeatRepository,
  RoutingTableRepository,
  routingKeys,
} from '@mesh/routing';
import {
  ADMIN_AUTHENTICATOR,
  AdminKeyGuard,
  createMetricsRegistry,
  RedisHealthModule,
} from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { CoordinatorConfig } from './coordinator.config';
import { CoordinatorRuntime } from './coordinator.runtime';
import { REDIS_CLIENT } from './coordinator.tokens';
import { DashboardModule, type DashboardDeps } from './dashboard/dashboard.module';
import { BackendReconciler } from './fleet/backend.reconciler';
import { HeartbeatRouterFleet } from './fleet/heartbeat.router-fleet';
import { KServeBackendFleet } from './fleet/kserve-backend.fleet';
import { KServeWarmer } from './fleet/kserve.warmer';
import { RedisDesiredVersions } from './fleet/redis.desired-versions';
import { RepositoryModelCatalog } from './fleet/repository-model.catalog';
import { RoutingRouteStore } from './fleet/routing.route-store';
import { RolloutsController } from './http/rollouts.controller';
import { LeaderLease } from './leader/leader-lease';
import { CoordinatorMetrics } from './metrics/coordinator.metrics';
import { RolloutPlanValidator } from './rollout/rollout-plan.validator';
import { RolloutMachine } from './rollout/rollout.machine';
import type { Clock } from './rollout/rollout.ports';
import { RolloutRepository } from './rollout/rollout.repository';
import { RolloutRunner } from './rollout/rollout.runner';
import { RolloutService } from './rollout/rollout.service';

const systemClock: Clock = { now: () => Date.now() };

/** Builds the coordinator's object graph from config; Nest only sees its edges. */
function build(config: CoordinatorConfig, logger: Logger) {
  const redis = createRedisClient(config.REDIS_URL, 'coordinator');
  const keys = routingKeys(config.REDIS_KEY_PREFIX);
  const table = new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  const holder = config.COORDINATOR_ID || `${hostname()}-${process.pid}`;
  const lease = new LeaderLease(redis, keys, holder, config.COORDINATOR_LEASE_MS);
  const rollouts = new RolloutRepository(redis, config.REDIS_KEY_PREFIX);
  const catalog = new RepositoryModelCatalog(config.MODEL_REPOSITORY);
  const routes = new RoutingRouteStore(table, () => lease.fence);
  const kserve = kservePoolOptionsFromEnv(config);
  const pkg = loadInferencePackage();
  const clients = kserve.endpoints.map(
    (address) =>
      new KServeClient({
        address,
        credentials: createChannelCredentials(kserve.tls),
        maxMessageBytes: config.KSERVE_MAX_MESSAGE_BYTES,
        pkg,
      }),
  );
  const fleet = new KServeBackendFleet(
    clients,
    catalog,
    config.KSERVE_PROBE_DEADLINE_MS,
    config.COORDINATOR_LOAD_DEADLINE_MS,
  );
  const desired = new RedisDesiredVersions(redis, config.REDIS_KEY_PREFIX);
  const service = new RolloutService(
    rollouts,
    new RolloutPlanValidator(catalog, routes),
    systemClock,
  );
  const heartbeats = new RouterHeartbeatRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  const signals = new RedisTrafficSignalSource(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  const registry = createMetricsRegistry('coordinator');
  // The runner is built below; the leader gauge asks it at scrape time.
  const metrics = new CoordinatorMetrics(registry, rollouts, () => runner.isLeader);
  const machine = new RolloutMachine(
    {
      clock: systemClock,
      routes,
      backends: fleet,
      routers: new HeartbeatRouterFleet(heartbeats),
      signals,
      catalog,
      warmer: new KServeWarmer(clients, catalog, config.KSERVE_DEADLINE_MS),
      desired,
      pins: new JobPinReader(redis, config.REDIS_KEY_PREFIX),
    },
    {
      loadSampleMs: config.COORDINATOR_LOAD_SAMPLE_MS,
      loadTimeoutMs: config.COORDINATOR_LOAD_TIMEOUT_MS,
      onGate: (plan, verdict) => metrics.gateEvaluated(plan, verdict),
    },
  );
  const runner = new RolloutRunner(
    lease,
    rollouts,
    machine,
    new BackendReconciler(fleet, desired, logger),
    logger,
    { tickMs: config.COORDINATOR_TICK_MS, reconcileMs: config.COORDINATOR_RECONCILE_MS },
  );
  const dashboard: DashboardDeps = {
    auth: new AdminAuthenticator(config.ADMIN_API_KEY),
    clock: systemClock,
    table,
    heartbeats,
    signals,
    routeValidator: new RouteEditValidator(config.MODEL_REPOSITORY),
    rollouts: service,
    rolloutRepository: rollouts,
    jobs: new JobRepository(redis, {
      keyPrefix: config.REDIS_KEY_PREFIX,
      retentionSeconds: config.JOBS_RETENTION_SECONDS,
    }),
    backends: clients,
    backendDeadlineMs: config.KSERVE_PROBE_DEADLINE_MS,
  };
  return {
    redis,
    service,
    dashboard,
    registry,
    runtime: new CoordinatorRuntime(redis, clients, runner),
  };
}

/** The version-switch coordinator: the rollout API, the leader loop, health and metrics. */
@Module({})
export class CoordinatorModule {
  static register(config: CoordinatorConfig, logger: Logger): DynamicModule {
    const graph = build(config, logger);
    return {
      module: CoordinatorModule,
      imports: [
        RedisHealthModule.register('coordinator', config.REDIS_URL, graph.registry),
        DashboardModule.register(graph.dashboard),
      ],
      controllers: [RolloutsController],
      providers: [
        { provide: REDIS_CLIENT, useValue: graph.redis },
        { provide: ADMIN_AUTHENTICATOR, useValue: graph.dashboard.auth },
        { provide: RolloutService, useValue: graph.service },
        { provide: CoordinatorRuntime, useValue: graph.runtime },
        AdminKeyGuard,
      ],
    };
  }
}
