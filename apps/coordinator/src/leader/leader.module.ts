import { Module } from '@nestjs/common';
import { JobPinReader } from '@mesh/jobs';
import type { KServeClient } from '@mesh/kserve';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/routing';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CoordinatorConfig } from '../coordinator.config';
import { CoordinatorRuntime } from '../coordinator.runtime';
import {
  CLOCK,
  COORDINATOR_CONFIG,
  COORDINATOR_LOGGER,
  KSERVE_CLIENTS,
} from '../coordinator.tokens';
import { BackendReconciler } from '../fleet/backend.reconciler';
import { HeartbeatRouterFleet } from '../fleet/heartbeat.router-fleet';
import { KServeBackendFleet } from '../fleet/kserve-backend.fleet';
import { KServeWarmer } from '../fleet/kserve.warmer';
import { RedisDesiredVersions } from '../fleet/redis.desired-versions';
import { RepositoryModelCatalog } from '../fleet/repository-model.catalog';
import { RoutingRouteStore } from '../fleet/routing.route-store';
import { CoordinatorMetrics } from '../metrics/coordinator.metrics';
import { RolloutMachine } from '../rollout/rollout.machine';
import type { Clock, RolloutPorts } from '../rollout/rollout.ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutRunner } from '../rollout/rollout.runner';
import { LeaderLease } from './leader-lease';

const ROLLOUT_PORTS = Symbol('ROLLOUT_PORTS');

/** What a rollout looks at and acts on, over the core module's stores and channels. */
function rolloutPorts(
  clock: Clock,
  config: CoordinatorConfig,
  clients: readonly KServeClient[],
  catalog: RepositoryModelCatalog,
  fleet: KServeBackendFleet,
  routes: RoutingRouteStore,
  heartbeats: RouterHeartbeatRepository,
  signals: RedisTrafficSignalSource,
  desired: RedisDesiredVersions,
  pins: JobPinReader,
): RolloutPorts {
  return {
    clock,
    routes,
    backends: fleet,
    routers: new HeartbeatRouterFleet(heartbeats),
    signals,
    catalog,
    warmer: new KServeWarmer(clients, catalog, config.KSERVE_DEADLINE_MS),
    desired,
    pins,
  };
}

/** The leader loop and its metrics (the leader gauge asks the runner at scrape time). */
function leaderRuntime(
  ports: RolloutPorts,
  config: CoordinatorConfig,
  logger: Logger,
  registry: Registry,
  lease: LeaderLease,
  rollouts: RolloutRepository,
  clients: readonly KServeClient[],
  fleet: KServeBackendFleet,
): CoordinatorRuntime {
  const metrics = new CoordinatorMetrics(registry, rollouts, () => runner.isLeader);
  const machine = new RolloutMachine(ports, {
    loadSampleMs: config.COORDINATOR_LOAD_SAMPLE_MS,
    loadTimeoutMs: config.COORDINATOR_LOAD_TIMEOUT_MS,
    onGate: (plan, verdict) => metrics.gateEvaluated(plan, verdict),
  });
  const reconciler = new BackendReconciler(fleet, ports.desired, logger);
  const runner = new RolloutRunner(lease, rollouts, machine, reconciler, logger, {
    tickMs: config.COORDINATOR_TICK_MS,
    reconcileMs: config.COORDINATOR_RECONCILE_MS,
    clock: ports.clock,
  });
  return new CoordinatorRuntime(clients, runner);
}

/** The leader: lease, rollout machine and runner, reconciler; started once the app is up. */
@Module({
  providers: [
    {
      provide: KServeBackendFleet,
      inject: [KSERVE_CLIENTS, RepositoryModelCatalog, COORDINATOR_CONFIG],
      useFactory: (
        clients: readonly KServeClient[],
        catalog: RepositoryModelCatalog,
        config: CoordinatorConfig,
      ) =>
        new KServeBackendFleet(
          clients,
          catalog,
          config.KSERVE_PROBE_DEADLINE_MS,
          config.COORDINATOR_LOAD_DEADLINE_MS,
        ),
    },
    {
      provide: ROLLOUT_PORTS,
      inject: [
        CLOCK,
        COORDINATOR_CONFIG,
        KSERVE_CLIENTS,
        RepositoryModelCatalog,
        KServeBackendFleet,
        RoutingRouteStore,
        RouterHeartbeatRepository,
        RedisTrafficSignalSource,
        RedisDesiredVersions,
        JobPinReader,
      ],
      useFactory: rolloutPorts,
    },
    {
      provide: CoordinatorRuntime,
      inject: [
        ROLLOUT_PORTS,
        COORDINATOR_CONFIG,
        COORDINATOR_LOGGER,
        METRICS_REGISTRY,
        LeaderLease,
        RolloutRepository,
        KSERVE_CLIENTS,
        KServeBackendFleet,
      ],
      useFactory: leaderRuntime,
    },
  ],
})
export class LeaderModule {}
