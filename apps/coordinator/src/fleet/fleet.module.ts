import { Module } from '@nestjs/common';
import { JobPinReader } from '@mesh/jobs';
import type { KServeClient } from '@mesh/kserve';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/routing';
import type { CoordinatorConfig } from '../coordinator.config';
import { CLOCK, COORDINATOR_CONFIG, KSERVE_CLIENTS, ROLLOUT_PORTS } from '../coordinator.tokens';
import type { Clock, RolloutPorts } from '../rollout/rollout.ports';
import { HeartbeatRouterFleet } from './heartbeat.router-fleet';
import { KServeBackendFleet } from './kserve-backend.fleet';
import { KServeWarmer } from './kserve.warmer';
import { RedisDesiredVersions } from './redis.desired-versions';
import { RepositoryModelCatalog } from './repository-model.catalog';
import { RoutingRouteStore } from './routing.route-store';

function backendFleet(
  clients: readonly KServeClient[],
  catalog: RepositoryModelCatalog,
  config: CoordinatorConfig,
): KServeBackendFleet {
  return new KServeBackendFleet(
    clients,
    catalog,
    config.KSERVE_PROBE_DEADLINE_MS,
    config.COORDINATOR_LOAD_DEADLINE_MS,
  );
}

const PORTS_DEPS = [
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
];

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

/**
 * The fleet as a rollout sees and moves it: backends, routers, routes, signals, the catalog and
 * warmer, desired versions and job pins, as RolloutPorts; the backend fleet is exported too, for
 * the leader's reconciler.
 */
@Module({
  providers: [
    {
      provide: KServeBackendFleet,
      inject: [KSERVE_CLIENTS, RepositoryModelCatalog, COORDINATOR_CONFIG],
      useFactory: backendFleet,
    },
    { provide: ROLLOUT_PORTS, inject: PORTS_DEPS, useFactory: rolloutPorts },
  ],
  exports: [KServeBackendFleet, ROLLOUT_PORTS],
})
export class FleetModule {}
