import { Module } from '@nestjs/common';
import { JobPinReader } from '@mesh/jobs';
import type { KServeClient } from '@mesh/kserve';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/signals';
import type { CoordinatorConfig } from '@mesh/app-config';
import { CLOCK, COORDINATOR_CONFIG, KSERVE_CLIENTS, ROLLOUT_PORTS } from '../../coordinator-tokens';
import { PlacementAwareFleet } from '../../placement/placement-aware-fleet';
import { PlacementModule } from '../../placement/placement.module';
import type { Clock, RolloutPorts } from '../rollout-ports';
import { HeartbeatRouterFleet } from './heartbeat-router-fleet';
import { KServeWarmer } from './kserve-warmer';
import { RepositoryModelCatalog } from './repository-model-catalog';
import { RoutingRouteStore } from './routing-route-store';

const PORTS_DEPS = [
  CLOCK,
  COORDINATOR_CONFIG,
  KSERVE_CLIENTS,
  RepositoryModelCatalog,
  PlacementAwareFleet,
  RoutingRouteStore,
  RouterHeartbeatRepository,
  RedisTrafficSignalSource,
  JobPinReader,
];

/** What a rollout looks at and acts on, over the core module's stores and channels. */
function rolloutPorts(
  clock: Clock,
  config: CoordinatorConfig,
  clients: readonly KServeClient[],
  catalog: RepositoryModelCatalog,
  placed: PlacementAwareFleet,
  routes: RoutingRouteStore,
  heartbeats: RouterHeartbeatRepository,
  signals: RedisTrafficSignalSource,
  pins: JobPinReader,
): RolloutPorts {
  return {
    clock,
    routes,
    // Loads, readiness and retirement go through the placer (plain fleet without budgets).
    backends: placed,
    routers: new HeartbeatRouterFleet(heartbeats),
    signals,
    catalog,
    warmer: new KServeWarmer(clients, catalog, config.KSERVE_DEADLINE_MS),
    desired: placed,
    pins,
  };
}

/**
 * The fleet as a rollout sees and moves it: backends (through the placer), routers, routes,
 * signals, the catalog and warmer, desired versions and job pins, as RolloutPorts.
 */
@Module({
  imports: [PlacementModule],
  providers: [{ provide: ROLLOUT_PORTS, inject: PORTS_DEPS, useFactory: rolloutPorts }],
  exports: [ROLLOUT_PORTS],
})
export class FleetModule {}
