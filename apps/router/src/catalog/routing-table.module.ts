import { Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { KServeBackends, VersionCatalog, type ServableVersion } from '@mesh/inference';
import { RoutingTableCache, RoutingTableRepository, WeightedVersionPicker } from '@mesh/routing';
import { TenantAuthenticator } from '@mesh/tenancy';
import type { Logger } from 'pino';
import type { RouterConfig } from '@mesh/app-config';
import { LOGGER, REDIS, ROUTER_CONFIG, ROUTES_SUBSCRIBER } from '../router-tokens';
import { CallerService } from '../tenancy/caller.service';
import { RouteSelector } from './route-selector';

function routesCache(
  config: RouterConfig,
  logger: Logger,
  repository: RoutingTableRepository,
  subscriber: RedisClient,
): RoutingTableCache {
  return new RoutingTableCache(repository, subscriber, {
    refreshIntervalMs: config.ROUTER_ROUTES_REFRESH_MS,
    logger,
  });
}

/**
 * Resident on no backend while some backend is up: the placer can load it, so requests wait
 * (cold start). With no backend up at all the version stays unroutable (503 at once).
 */
function isCold(backends: KServeBackends, version: ServableVersion): boolean {
  return backends.healthyBackends() > 0 && !backends.isResident(version);
}

/**
 * The routing table (stored, cached, subscribed) and what reads it: version picking and tenant
 * callers. Started and stopped by the lifecycle in SignalsModule, which also starts the signals
 * that report on it.
 */
@Module({
  providers: [
    {
      provide: RoutingTableRepository,
      inject: [ROUTER_CONFIG, REDIS],
      useFactory: (config: RouterConfig, redis: RedisClient) =>
        new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
    },
    {
      provide: RoutingTableCache,
      inject: [ROUTER_CONFIG, LOGGER, RoutingTableRepository, ROUTES_SUBSCRIBER],
      useFactory: routesCache,
    },
    {
      provide: RouteSelector,
      inject: [RoutingTableCache, VersionCatalog, KServeBackends],
      useFactory: (routes: RoutingTableCache, cat: VersionCatalog, backends: KServeBackends) =>
        new RouteSelector(routes, new WeightedVersionPicker(), cat, backends, (v) =>
          isCold(backends, v),
        ),
    },
    {
      provide: CallerService,
      inject: [RoutingTableCache],
      useFactory: (routes: RoutingTableCache) => new CallerService(new TenantAuthenticator(routes)),
    },
  ],
  exports: [RoutingTableRepository, RoutingTableCache, RouteSelector, CallerService],
})
export class RoutingTableModule {}
