import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type DynamicModule,
  Inject,
  Module,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { JobChangeFeed, JobFlowProducer, JobRepository, retryPolicyOf } from '@mesh/jobs';
import { kservePoolOptionsFromEnv } from '@mesh/kserve';
import {
  AdminAuthenticator,
  InFlightLimiter,
  RoutingTableCache,
  RouteEditValidator,
  RouterHeartbeatRepository,
  RoutingTableRepository,
  TenantAuthenticator,
  TrafficSignalRecorder,
  TenantRateLimiter,
  WeightedVersionPicker,
} from '@mesh/routing';
import {
  ADMIN_AUTHENTICATOR,
  AdminKeyGuard,
  HealthController,
  METRICS_REGISTRY,
  MetricsController,
  OpenStreamsRegistry,
  READINESS_CHECKS,
  RedisPingCheck,
  createMetricsRegistry,
} from '@mesh/telemetry';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { AdminController } from './admin/admin.controller';
import { AdminService } from './admin/admin.service';
import { AccessLog } from './core/access.log';
import { RouteEditChecker } from './admin/route-edit.checker';
import { AdmissionService } from './core/admission.service';
import { CallerService } from './core/caller.service';
import { CoalescedInference } from './core/coalesced.inference';
import { HeartbeatPublisher } from './core/heartbeat.publisher';
import { PredictService } from './core/predict.service';
import { ResponseCacheRegistry } from './core/response-cache.registry';
import { RouteSelector } from './core/route.selector';
import { RouterMetrics } from './core/router.metrics';
import { ShadowMirror } from './core/shadow.mirror';
import { TasksService } from './core/tasks.service';
import { VersionTraffic } from './core/version.traffic';
import { GrpcErrorFilter } from './grpc/grpc-error.filter';
import { JobQueryService } from './jobs/job-query.service';
import { JobSubmissionService } from './jobs/job-submission.service';
import { JOB_UPLOAD_LIMITS } from './jobs/job-upload.limits';
import { JobsController } from './jobs/jobs.controller';
import { JobsGrpcController } from './jobs/jobs.grpc.controller';
import { PredictorGrpcController } from './grpc/predictor.grpc.controller';
import { PredictController } from './http/predict.controller';
import { batchBound, type RouterConfig } from './router.config';
import { RouterLifecycle } from './router.lifecycle';
import { BackendReadyCheck, RedisReadyCheck, RoutesLoadedCheck } from './router.readiness';
import { LOGGER, REDIS } from './router.tokens';

/**
 * Longest wait for one Redis command of the router's shared connection (admin edits, job
 * submissions and reads, heartbeats, signals). While Redis is down those answer 503
 * STORE_UNAVAILABLE after this long instead of holding the caller for the whole outage;
 * predictions do not wait on Redis (cached routing table, in-memory insurance rate limiter).
 */
const REDIS_COMMAND_TIMEOUT_MS = 3000;

const DEFAULT_CACHE_ENTRIES = 10_000;

function defaultRouterId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** The router: tenants, routing, admission, preprocessing and inference over KServe v2. */
@Module({})
export class RouterModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly flows: JobFlowProducer,
    private readonly jobChanges: JobChangeFeed,
  ) {}

  static register(config: RouterConfig, logger: Logger, catalog: VersionCatalog): DynamicModule {
    return {
      module: RouterModule,
      controllers: [
        HealthController,
        MetricsController,
        PredictController,
        AdminController,
        PredictorGrpcController,
        JobsController,
        JobsGrpcController,
      ],
      providers: [
        { provide: LOGGER, useValue: logger },
        {
          provide: AccessLog,
          useFactory: () => new AccessLog(logger, config.ROUTER_ACCESS_LOG_SAMPLE),
        },
        { provide: VersionCatalog, useValue: catalog },
        {
          provide: REDIS,
          useFactory: () =>
            createRedisClient(config.REDIS_URL, 'router', {
              commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
            }),
        },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('router') },
        {
          provide: RouterMetrics,
          inject: [METRICS_REGISTRY, VersionTraffic],
          useFactory: (registry: Registry, traffic: VersionTraffic) =>
            new RouterMetrics(registry, traffic),
        },
        {
          provide: TrafficSignalRecorder,
          inject: [REDIS],
          useFactory: (redis: Redis) =>
            new TrafficSignalRecorder(redis, {
              keyPrefix: config.REDIS_KEY_PREFIX,
              bucketMs: config.ROUTER_SIGNAL_BUCKET_MS,
              flushIntervalMs: config.ROUTER_SIGNAL_FLUSH_MS,
              onFlushError: (err) => logger.warn({ err }, 'traffic signal flush failed'),
            }),
        },
        {
          provide: VersionTraffic,
          inject: [TrafficSignalRecorder],
          useFactory: (recorder: TrafficSignalRecorder) =>
            new VersionTraffic(config.ROUTER_TRAFFIC_SIGNALS === 'on' ? recorder : undefined),
        },
        {
          provide: HeartbeatPublisher,
          inject: [REDIS, RoutingTableCache, VersionCatalog, KServeBackends, VersionTraffic],
          useFactory: (
            redis: Redis,
            routes: RoutingTableCache,
            cat: VersionCatalog,
            backends: KServeBackends,
            traffic: VersionTraffic,
          ) =>
            new HeartbeatPublisher(
              new RouterHeartbeatRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
              routes,
              cat,
              backends,
              traffic,
              logger,
              {
                routerId: config.ROUTER_ID ?? defaultRouterId(),
                intervalMs: config.ROUTER_HEARTBEAT_INTERVAL_MS,
                ttlSeconds: Math.max(
                  3,
                  Math.ceil((3 * config.ROUTER_HEARTBEAT_INTERVAL_MS) / 1000),
                ),
              },
            ),
        },
        {
          provide: RoutingTableRepository,
          inject: [REDIS],
          useFactory: (redis: Redis) =>
            new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
        },
        {
          provide: RoutingTableCache,
          inject: [RoutingTableRepository, REDIS],
          useFactory: (repo: RoutingTableRepository, redis: Redis) =>
            new RoutingTableCache(repo, redis, {
              refreshIntervalMs: config.ROUTER_ROUTES_REFRESH_MS,
              logger,
            }),
        },
        {
          provide: KServeBackends,
          inject: [METRICS_REGISTRY],
          useFactory: () => new KServeBackends(kservePoolOptionsFromEnv(config), logger),
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
          useFactory: (routes: RoutingTableCache) =>
            new CallerService(new TenantAuthenticator(routes)),
        },
        { provide: ADMIN_AUTHENTICATOR, useValue: new AdminAuthenticator(config.ADMIN_API_KEY) },
        {
          provide: AdmissionService,
          inject: [REDIS],
          useFactory: (redis: Redis) =>
            new AdmissionService(
              new TenantRateLimiter(redis, { keyPrefix: config.REDIS_KEY_PREFIX }),
              new InFlightLimiter(),
            ),
        },
        {
          provide: PredictService,
          inject: [
            AdmissionService,
            RouteSelector,
            KServeBackends,
            RouterMetrics,
            TrafficSignalRecorder,
          ],
          useFactory: (
            a: AdmissionService,
            s: RouteSelector,
            b: KServeBackends,
            m: RouterMetrics,
            recorder: TrafficSignalRecorder,
          ) =>
            new PredictService(
              a,
              s,
              b,
              new ResponseCacheRegistry(DEFAULT_CACHE_ENTRIES),
              m,
              new ShadowMirror(b, m, undefined, recorder),
              (v) => batchBound(config, v.maxLength),
              config.ROUTER_COALESCE === 'on'
                ? new CoalescedInference(
                    b,
                    {
                      ...(config.ROUTER_COALESCE_IN_FLIGHT === undefined
                        ? {}
                        : { maxInFlight: config.ROUTER_COALESCE_IN_FLIGHT }),
                      instancesOf: (v) => b.instancesOf(v),
                      maxRows: config.ROUTER_COALESCE_MAX_ROWS,
                      maxTokens: config.ROUTER_COALESCE_MAX_TOKENS,
                      bucket: config.ROUTER_COALESCE_BUCKET,
                      deadlineMs: config.KSERVE_DEADLINE_MS,
                    },
                    (v, requests) => m.coalesced(v.model, v.version, requests),
                  )
                : undefined,
            ),
        },
        {
          provide: TasksService,
          inject: [RoutingTableCache, VersionCatalog],
          useFactory: (routes: RoutingTableCache, cat: VersionCatalog) =>
            new TasksService(routes, cat),
        },
        {
          provide: AdminService,
          inject: [
            RoutingTableRepository,
            RoutingTableCache,
            RouteSelector,
            VersionCatalog,
            KServeBackends,
          ],
          useFactory: (
            repo: RoutingTableRepository,
            routes: RoutingTableCache,
            s: RouteSelector,
            cat: VersionCatalog,
            backends: KServeBackends,
          ) =>
            new AdminService(repo, routes, s, {
              meshConfigFile: config.MESH_CONFIG,
              actor: config.ADMIN_ACTOR,
              logger,
              checker: new RouteEditChecker(
                new RouteEditValidator(config.MODEL_REPOSITORY),
                cat,
                backends,
                s,
              ),
            }),
        },
        {
          provide: READINESS_CHECKS,
          inject: [REDIS, RoutingTableCache, KServeBackends],
          useFactory: (redis: Redis, routes: RoutingTableCache, backends: KServeBackends) => [
            new RedisReadyCheck(new RedisPingCheck(redis), routes),
            new RoutesLoadedCheck(routes),
            new BackendReadyCheck(backends),
          ],
        },
        {
          provide: RouterLifecycle,
          inject: [
            RoutingTableRepository,
            RoutingTableCache,
            KServeBackends,
            VersionCatalog,
            HeartbeatPublisher,
            TrafficSignalRecorder,
          ],
          useFactory: (
            repo: RoutingTableRepository,
            routes: RoutingTableCache,
            backends: KServeBackends,
            cat: VersionCatalog,
            heartbeat: HeartbeatPublisher,
            recorder: TrafficSignalRecorder,
          ) =>
            new RouterLifecycle(config, logger, repo, routes, backends, cat, {
              heartbeat,
              recorder,
            }),
        },
        AdminKeyGuard,
        ...jobProviders(config),
        GrpcErrorFilter,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flows.close();
    await this.jobChanges.close();
    await this.redis.quit();
  }
}

/** The bulk-job API: the job store, the flow producer, submission and queries. */
function jobProviders(config: RouterConfig): Provider[] {
  return [
    OpenStreamsRegistry,
    {
      provide: JOB_UPLOAD_LIMITS,
      useValue: {
        maxBytes: config.JOBS_MAX_UPLOAD_BYTES,
        maxLineBytes: config.JOBS_MAX_LINE_BYTES,
      },
    },
    {
      provide: JobRepository,
      inject: [REDIS],
      useFactory: (redis: Redis) =>
        new JobRepository(redis, {
          keyPrefix: config.REDIS_KEY_PREFIX,
          retentionSeconds: config.JOBS_RETENTION_SECONDS,
        }),
    },
    {
      provide: JobFlowProducer,
      inject: [REDIS],
      useFactory: (redis: Redis) =>
        new JobFlowProducer(redis, config.REDIS_KEY_PREFIX, retryPolicyOf(config)),
    },
    {
      provide: JobSubmissionService,
      inject: [RoutingTableCache, RouteSelector, JobRepository, JobFlowProducer],
      useFactory: (
        routes: RoutingTableCache,
        selector: RouteSelector,
        repository: JobRepository,
        flows: JobFlowProducer,
      ) =>
        new JobSubmissionService(routes, selector, repository, flows, {
          maxItems: config.JOBS_MAX_ITEMS,
          chunkSize: config.JOBS_CHUNK_SIZE,
          maxQueuedItems: config.JOBS_DEFAULT_MAX_QUEUED_ITEMS,
          maxConcurrentJobs: config.JOBS_DEFAULT_MAX_CONCURRENT_JOBS,
        }),
    },
    {
      provide: JobChangeFeed,
      useFactory: () =>
        new JobChangeFeed(
          createRedisClient(config.REDIS_URL, 'router-job-changes'),
          config.REDIS_KEY_PREFIX,
          config.JOBS_STREAM_POLL_MS,
        ),
    },
    {
      provide: JobQueryService,
      inject: [JobRepository, JobChangeFeed],
      useFactory: (repository: JobRepository, changes: JobChangeFeed) =>
        new JobQueryService(repository, changes),
    },
  ];
}
