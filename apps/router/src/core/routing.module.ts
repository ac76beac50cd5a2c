import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import {
  RouterHeartbeatRepository,
  RoutingTableCache,
  RoutingTableRepository,
  TenantAuthenticator,
  TrafficSignalRecorder,
  WeightedVersionPicker,
} from '@mesh/routing';
import type { Logger } from 'pino';
import type { RouterConfig } from '../router.config';
import { RouterLifecycle } from '../router.lifecycle';
import { LOGGER, REDIS, ROUTER_CONFIG, ROUTES_SUBSCRIBER } from '../router.tokens';
import { CallerService } from './caller.service';
import { HeartbeatPublisher } from './heartbeat.publisher';
import { RouteSelector } from './route.selector';
import { VersionTraffic } from './version.traffic';

const CONTEXT = [ROUTER_CONFIG, LOGGER, REDIS];
type Context = [RouterConfig, Logger, RedisClient];

function trafficRecorder(...[config, logger, redis]: Context): TrafficSignalRecorder {
  return new TrafficSignalRecorder(redis, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    bucketMs: config.ROUTER_SIGNAL_BUCKET_MS,
    flushIntervalMs: config.ROUTER_SIGNAL_FLUSH_MS,
    onFlushError: (err) => logger.warn({ err }, 'traffic signal flush failed'),
  });
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

type LifecycleDeps = [
  RouterConfig,
  Logger,
  RoutingTableRepository,
  RoutingTableCache,
  KServeBackends,
  VersionCatalog,
  HeartbeatPublisher,
  TrafficSignalRecorder,
];

/**
 * The routing table (stored, cached, subscribed), version picking, tenant callers, traffic
 * signals and heartbeats, with the lifecycle that starts and stops them.
 */
@Module({
  providers: [
    { provide: TrafficSignalRecorder, inject: CONTEXT, useFactory: trafficRecorder },
    {
      provide: VersionTraffic,
      inject: [ROUTER_CONFIG, TrafficSignalRecorder],
      useFactory: (config: RouterConfig, recorder: TrafficSignalRecorder) =>
        new VersionTraffic(config.ROUTER_TRAFFIC_SIGNALS === 'on' ? recorder : undefined),
    },
    {
      provide: RoutingTableRepository,
      inject: CONTEXT,
      useFactory: (...[config, , redis]: Context) =>
        new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
    },
    {
      provide: RoutingTableCache,
      inject: [ROUTER_CONFIG, LOGGER, RoutingTableRepository, ROUTES_SUBSCRIBER],
      useFactory: (
        c: RouterConfig,
        logger: Logger,
        repo: RoutingTableRepository,
        sub: RedisClient,
      ) =>
        new RoutingTableCache(repo, sub, { refreshIntervalMs: c.ROUTER_ROUTES_REFRESH_MS, logger }),
    },
    {
      provide: RouteSelector,
      inject: [RoutingTableCache, VersionCatalog, KServeBackends],
      useFactory: (routes: RoutingTableCache, cat: VersionCatalog, backends: KServeBackends) =>
        new RouteSelector(routes, new WeightedVersionPicker(), cat, backends),
    },
    {
      provide: CallerService,
      inject: [RoutingTableCache],
      useFactory: (routes: RoutingTableCache) => new CallerService(new TenantAuthenticator(routes)),
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
      useFactory: (
        ...[config, logger, repo, routes, backends, cat, heartbeat, recorder]: LifecycleDeps
      ) =>
        new RouterLifecycle(config, logger, repo, routes, backends, cat, { heartbeat, recorder }),
    },
  ],
  exports: [
    RoutingTableRepository,
    RoutingTableCache,
    RouteSelector,
    CallerService,
    TrafficSignalRecorder,
    VersionTraffic,
  ],
})
export class RoutingModule {}
