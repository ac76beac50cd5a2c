import { Module } from '@nestjs/common';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import {
  InFlightLimiter,
  RoutingTableCache,
  TenantRateLimiter,
  TrafficSignalRecorder,
} from '@mesh/routing';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { RedisClient } from '@mesh/config';
import type { Registry } from 'prom-client';
import { GrpcErrorFilter } from '../grpc/grpc-error.filter';
import { PredictorGrpcController } from '../grpc/predictor.grpc.controller';
import { PredictController } from '../http/predict.controller';
import { batchBound, type RouterConfig } from '../router.config';
import { REDIS, ROUTER_CONFIG } from '../router.tokens';
import { AdmissionService } from './admission.service';
import { CoalescedInference } from './coalesced.inference';
import { PredictService } from './predict.service';
import { ResponseCacheRegistry } from './response-cache.registry';
import { RouteSelector } from './route.selector';
import { RoutingTableModule } from './routing-table.module';
import { RouterMetrics } from './router.metrics';
import { ShadowMirror } from './shadow.mirror';
import { SignalsModule } from './signals.module';
import { TasksService } from './tasks.service';
import { VersionTraffic } from './version.traffic';

const DEFAULT_CACHE_ENTRIES = 10_000;

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

function predictService(
  config: RouterConfig,
  admission: AdmissionService,
  selector: RouteSelector,
  backends: KServeBackends,
  metrics: RouterMetrics,
  recorder: TrafficSignalRecorder,
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
      provide: PredictService,
      inject: [
        ROUTER_CONFIG,
        AdmissionService,
        RouteSelector,
        KServeBackends,
        RouterMetrics,
        TrafficSignalRecorder,
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
