import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { RoutingTableCache, RoutingTableRepository } from '@mesh/routing';
import { RouterHeartbeatRepository, TrafficSignalRecorder } from '@mesh/signals';
import { PlacementKeys } from '@mesh/placement';
import type { Logger } from 'pino';
import type { RouterConfig } from '@mesh/app-config';
import { RouterLifecycle } from '../router-lifecycle';
import { LOGGER, REDIS, ROUTER_CONFIG } from '../router-tokens';
import { HeartbeatPublisher } from './heartbeat-publisher';
import { RoutingTableModule } from '../catalog/routing-table.module';
import { VersionTraffic } from './version-traffic';

const CONTEXT = [ROUTER_CONFIG, LOGGER, REDIS];
type Context = [RouterConfig, Logger, RedisClient];

function trafficRecorder(...[config, logger, redis]: Context): TrafficSignalRecorder {
  return new TrafficSignalRecorder(redis, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    bucketMs: config.ROUTER_SIGNAL_BUCKET_MS,
    flushIntervalMs: config.ROUTER_SIGNAL_FLUSH_MS,
    onFlushError: (err) => logger.warn({ err }, 'traffic signal flush failed'),
    // The placer evicts the least recently used version: it reads these (docs/placement.md).
    lastUseKey: new PlacementKeys(config.REDIS_KEY_PREFIX).lastUse(),
  });
}

function versionTraffic(config: RouterConfig, recorder: TrafficSignalRecorder): VersionTraffic {
  return new VersionTraffic(config.ROUTER_TRAFFIC_SIGNALS === 'on' ? recorder : undefined);
}

function heartbeatPublisher(
  ...[config, logger, redis, routes, catalog, backends, traffic]: [
    ...Context,
    RoutingTableCache,
    VersionCatalog,
    KServeBackends,
    VersionTraffic,
  ]
): HeartbeatPublisher {
  const repository = new RouterHeartbeatRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  const intervalMs = config.ROUTER_HEARTBEAT_INTERVAL_MS;
  return new HeartbeatPublisher(repository, routes, catalog, backends, traffic, logger, {
    routerId: config.ROUTER_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    intervalMs,
    ttlSeconds: Math.max(3, Math.ceil((3 * intervalMs) / 1000)),
  });
}

function lifecycle(
  config: RouterConfig,
  logger: Logger,
  repository: RoutingTableRepository,
  routes: RoutingTableCache,
  backends: KServeBackends,
  catalog: VersionCatalog,
  heartbeat: HeartbeatPublisher,
  recorder: TrafficSignalRecorder,
): RouterLifecycle {
  const signals = { heartbeat, recorder };
  return new RouterLifecycle(config, logger, repository, routes, backends, catalog, signals);
}

/**
 * What the router tells rollouts and dashboards through Redis: traffic signals and heartbeats.
 * The lifecycle is here, the one module that sees both the table and the signals, since it
 * starts the table and backends before the signals that report on them (RouterLifecycle).
 */
@Module({
  imports: [RoutingTableModule],
  providers: [
    { provide: TrafficSignalRecorder, inject: CONTEXT, useFactory: trafficRecorder },
    {
      provide: VersionTraffic,
      inject: [ROUTER_CONFIG, TrafficSignalRecorder],
      useFactory: versionTraffic,
    },
    {
      provide: HeartbeatPublisher,
      inject: [...CONTEXT, RoutingTableCache, VersionCatalog, KServeBackends, VersionTraffic],
      useFactory: heartbeatPublisher,
    },
    {
      provide: RouterLifecycle,
      inject: [
        ROUTER_CONFIG,
        LOGGER,
        RoutingTableRepository,
        RoutingTableCache,
        KServeBackends,
        VersionCatalog,
        HeartbeatPublisher,
        TrafficSignalRecorder,
      ],
      useFactory: lifecycle,
    },
  ],
  exports: [TrafficSignalRecorder, VersionTraffic],
})
export class SignalsModule {}
