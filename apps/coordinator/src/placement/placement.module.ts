import { Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { JobPinReader } from '@mesh/jobs';
import { PlacementDemand, PlacementLedgerReader } from '@mesh/placement';
import { RoutingTableRepository } from '@mesh/routing';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/signals';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CoordinatorConfig } from '@mesh/app-config';
import { CLOCK, COORDINATOR_CONFIG, COORDINATOR_LOGGER, REDIS_CLIENT } from '../coordinator-tokens';
import { KServeBackendFleet } from '../rollout/adapters/kserve-backend-fleet';
import { RedisDesiredVersions } from '../rollout/adapters/redis-desired-versions';
import { RepositoryModelCatalog } from '../rollout/adapters/repository-model-catalog';
import type { Clock } from '../rollout/rollout-ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { budgetOf } from './backend-budgets';
import { PlacementAwareFleet } from './placement-aware-fleet';
import { PlacementPolicy } from './placement-policy';
import { PlacementSnapshotReader } from './placement-snapshot-reader';
import { PlacementMetrics } from './placement.metrics';
import type { PlacementSources } from './placement-ports';
import { PlacementRepository } from './placement.repository';
import { Placer } from './placer';
import { VersionSizeCheck } from './version-size.check';

const PLACEMENT_SOURCES = Symbol('PLACEMENT_SOURCES');
const SOURCE_DEPS = [
  RoutingTableRepository,
  RedisDesiredVersions,
  RolloutRepository,
  JobPinReader,
  REDIS_CLIENT,
  COORDINATOR_CONFIG,
  RedisTrafficSignalSource,
  RouterHeartbeatRepository,
  RepositoryModelCatalog,
];

/** What a pass reads, over the core module's stores. */
function placementSources(
  table: RoutingTableRepository,
  desired: RedisDesiredVersions,
  rollouts: RolloutRepository,
  pins: JobPinReader,
  redis: RedisClient,
  config: CoordinatorConfig,
  signals: RedisTrafficSignalSource,
  heartbeats: RouterHeartbeatRepository,
  catalog: RepositoryModelCatalog,
): PlacementSources {
  const demand = new PlacementDemand(redis, config.REDIS_KEY_PREFIX);
  return {
    routes: async () => (await table.load())?.routes ?? [],
    desired: () => desired.all(),
    activeRollouts: () => rollouts.active(),
    pinned: () => pins.allPinned(),
    demand: () => demand.pending(),
    requests: (window) => signals.requestsByVersion(window),
    heartbeats: () => heartbeats.readLive(),
    footprint: (model, version) => catalog.footprintMb(model, version),
    expectedSha: (model, version) => catalog.expectedSha(model, version),
  };
}

const PLACER_DEPS = [PLACEMENT_SOURCES, KServeBackendFleet, PlacementRepository, PlacementMetrics];
const PLACER_CORE = [REDIS_CLIENT, COORDINATOR_CONFIG, CLOCK, COORDINATOR_LOGGER];

/** The leader's placer over the KServe backends, with the configured budgets and knobs. */
function placer(
  sources: PlacementSources,
  fleet: KServeBackendFleet,
  repository: PlacementRepository,
  metrics: PlacementMetrics,
  redis: RedisClient,
  config: CoordinatorConfig,
  clock: Clock,
  logger: Logger,
): Placer {
  const budgets = budgetOf(config.KSERVE_BACKEND_BUDGETS_MB);
  return new Placer({
    reader: new PlacementSnapshotReader(
      sources,
      fleet,
      repository,
      budgets,
      config.PLACEMENT_RATE_WINDOW_MS,
    ),
    policy: new PlacementPolicy({
      minResidencyMs: config.PLACEMENT_MIN_RESIDENCY_MS,
      ratePerCopy: config.PLACEMENT_RATE_PER_COPY,
    }),
    backends: fleet,
    sources,
    repository,
    demand: new PlacementDemand(redis, config.REDIS_KEY_PREFIX),
    metrics,
    clock,
    logger,
  });
}

/**
 * Placement of versions on backends under memory budgets: the placer (run by the leader),
 * the fleet and desired versions a rollout acts through, and the size check of the API.
 */
@Module({
  providers: [
    {
      provide: PlacementRepository,
      inject: [REDIS_CLIENT, COORDINATOR_CONFIG],
      useFactory: (r: RedisClient, c: CoordinatorConfig) =>
        new PlacementRepository(r, c.REDIS_KEY_PREFIX),
    },
    {
      provide: PlacementMetrics,
      inject: [METRICS_REGISTRY],
      useFactory: (r: Registry) => new PlacementMetrics(r),
    },
    { provide: PLACEMENT_SOURCES, inject: SOURCE_DEPS, useFactory: placementSources },
    { provide: Placer, inject: [...PLACER_DEPS, ...PLACER_CORE], useFactory: placer },
    {
      provide: PlacementAwareFleet,
      inject: [KServeBackendFleet, RedisDesiredVersions, Placer],
      useFactory: (f: KServeBackendFleet, d: RedisDesiredVersions, p: Placer) =>
        new PlacementAwareFleet(f, d, p),
    },
    {
      provide: VersionSizeCheck,
      inject: [PlacementRepository, RepositoryModelCatalog, REDIS_CLIENT, COORDINATOR_CONFIG],
      useFactory: (
        p: PlacementRepository,
        c: RepositoryModelCatalog,
        r: RedisClient,
        cfg: CoordinatorConfig,
      ) => new VersionSizeCheck(p, c, new PlacementLedgerReader(r, cfg.REDIS_KEY_PREFIX)),
    },
  ],
  exports: [Placer, PlacementAwareFleet, VersionSizeCheck],
})
export class PlacementModule {}
