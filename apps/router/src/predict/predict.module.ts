import { hostname } from 'node:os';
import { Module } from '@nestjs/common';
import { KServeBackends, LoadedVersionsFeed, VersionCatalog } from '@mesh/inference';
import { PlacementDemand } from '@mesh/placement';
import { RoutingTableCache } from '@mesh/routing';
import { TrafficSignalRecorder } from '@mesh/signals';
import { InFlightLimiter, TenantRateLimiter } from '@mesh/tenancy';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { RedisClient } from '@mesh/config';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { GrpcErrorFilter } from '../grpc/grpc-error.hook';
import { PredictorGrpcController } from '../grpc/predictor-grpc.controller';
import { PredictController } from '../http/predict.controller';
import type { RouterConfig } from '@mesh/app-config';
import { batchBound } from './batch-bound';
import { LOGGER, PLACEMENT_SUBSCRIBER, REDIS, ROUTER_CONFIG } from '../router-tokens';
import { AdmissionService } from '../tenancy/admission.service';
import { CoalescedInference } from './coalesced-inference';
import { ColdStartListener } from './cold-start-listener';
import { ColdStartWaiter } from './cold-start-waiter';
import { PredictService } from './predict.service';
import { ResponseCacheRegistry } from './response-cache-registry';
import { RouteSelector } from '../catalog/route-selector';
import { RoutingTableModule } from '../catalog/routing-table.module';
import { RouterMetrics } from '../router.metrics';
import { ShadowMirror } from './shadow-mirror';
import { SignalsModule } from '../signals/signals.module';
import { TasksService } from '../catalog/tasks.service';
import { VersionTraffic } from '../signals/version-traffic';

const DEFAULT_CACHE_ENTRIES = 10_000;
/** Discovery while a cold version is awaited: faster than the usual round, never slower. */
const COLD_START_REFRESH_MS = 500;
/** A waiting router renews its demand this often (the batch worker renews its own likewise). */
const COLD_START_ASK_AGAIN_MS = 5_000;

/** Merged calls per version when ROUTER_COALESCE=on (ADR 0012); undefined sends one per request. */
function coalescing(config: RouterConfig, backends: KServeBackends, metrics: RouterMetrics) {
  if (config.ROUTER_COALESCE !== 'on') return undefined;
  const options = {
    ...(config.ROUTER_COALESCE_IN_FLIGHT === undefined
      ? {}
      : { maxInFlight: config.ROUTER_COALESCE_IN_FLIGHT }),
    instancesOf: (v: Parameters<KServeBackends['instancesOf']>[0]) => backends.instancesOf(v),
    maxRows: config.ROUTER_COALESCE_MAX_ROWS,
    maxTokens: config.ROUTER_COALESCE_MAX_TOKENS,
    bucket: config.ROUTER_COALESCE_BUCKET,
    deadlineMs: config.KSERVE_DEADLINE_MS,
  };
  return new CoalescedInference(backends, options, (v, requests) =>
    metrics.coalesced(v.model, v.version, requests),
  );
}

/** Cold starts (ROUTER_COLD_START_WAIT_MS): demand through Redis, wait on this router's view. */
function coldStartWaiter(
  ...[config, logger, redis, backends, catalog, metrics]: [
    RouterConfig,
    Logger,
    RedisClient,
    KServeBackends,
    VersionCatalog,
    RouterMetrics,
  ]
): ColdStartWaiter {
  const demand = new PlacementDemand(redis, config.REDIS_KEY_PREFIX);
  const by = config.ROUTER_ID ?? `router-${hostname()}-${process.pid}`;
  const isReady = (model: string, version: number) => {
    const v = catalog.servable(model, version);
    return v !== undefined && backends.unroutableReason(v) === undefined;
  };
  const ports = {
    isReady,
    refresh: () => backends.discoverFresh(),
    demand: (model: string, version: number) => demand.request(model, version, by),
    observe: metrics.coldStart.bind(metrics),
    warn: (fields: Record<string, unknown>, message: string) => logger.warn(fields, message),
  };
  const refreshEveryMs = Math.min(COLD_START_REFRESH_MS, config.KSERVE_HEALTH_INTERVAL_MS);
  return new ColdStartWaiter(ports, {
    waitMs: config.ROUTER_COLD_START_WAIT_MS,
    refreshEveryMs,
    askAgainEveryMs: COLD_START_ASK_AGAIN_MS,
  });
}

function predictService(
  config: RouterConfig,
  admission: AdmissionService,
  selector: RouteSelector,
  backends: KServeBackends,
  metrics: RouterMetrics,
  recorder: TrafficSignalRecorder,
  coldStarts: ColdStartWaiter,
): PredictService {
  return new PredictService(
    admission,
    selector,
    backends,
    new ResponseCacheRegistry(DEFAULT_CACHE_ENTRIES),
    metrics,
    new ShadowMirror(backends, metrics, undefined, recorder),
    (v) => batchBound(config, v.maxLength),
    coalescing(config, backends, metrics),
    coldStarts,
  );
}

/** Online predictions over HTTP and gRPC: admission, route selection, inference, tasks. */
@Module({
  imports: [RoutingTableModule, SignalsModule],
  controllers: [PredictController, PredictorGrpcController],
  providers: [
    {
      provide: RouterMetrics,
      inject: [METRICS_REGISTRY, VersionTraffic],
      useFactory: (registry: Registry, traffic: VersionTraffic) =>
        new RouterMetrics(registry, traffic),
    },
    {
      provide: AdmissionService,
      inject: [ROUTER_CONFIG, REDIS],
      useFactory: (config: RouterConfig, redis: RedisClient) =>
        new AdmissionService(
          new TenantRateLimiter(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
          new InFlightLimiter(),
        ),
    },
    {
      provide: ColdStartWaiter,
      inject: [ROUTER_CONFIG, LOGGER, REDIS, KServeBackends, VersionCatalog, RouterMetrics],
      useFactory: coldStartWaiter,
    },
    {
      provide: ColdStartListener,
      inject: [ROUTER_CONFIG, LOGGER, PLACEMENT_SUBSCRIBER, ColdStartWaiter],
      useFactory: (config: RouterConfig, logger: Logger, sub: RedisClient, w: ColdStartWaiter) =>
        new ColdStartListener(new LoadedVersionsFeed(sub, config.REDIS_KEY_PREFIX), w, logger),
    },
    {
      provide: PredictService,
      inject: [
        ROUTER_CONFIG,
        AdmissionService,
        RouteSelector,
        KServeBackends,
        RouterMetrics,
        TrafficSignalRecorder,
        ColdStartWaiter,
      ],
      useFactory: predictService,
    },
    {
      provide: TasksService,
      inject: [RoutingTableCache, VersionCatalog],
      useFactory: (routes: RoutingTableCache, cat: VersionCatalog) => new TasksService(routes, cat),
    },
    GrpcErrorFilter,
  ],
})
export class PredictModule {}
