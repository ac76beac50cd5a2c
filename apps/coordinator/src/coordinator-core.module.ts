import { hostname } from 'node:os';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { JobPinReader, JobRepository } from '@mesh/jobs';
import {
  createChannelCredentials,
  KServeClient,
  kservePoolOptionsFromEnv,
  loadInferencePackage,
} from '@mesh/kserve';
import { RoutingTableRepository, routingKeys } from '@mesh/routing';
import { RedisTrafficSignalSource, RouterHeartbeatRepository } from '@mesh/signals';
import { AdminAuthenticator } from '@mesh/tenancy';
import { ADMIN_AUTHENTICATOR, METRICS_REGISTRY } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CoordinatorConfig } from '@mesh/app-config';
import {
  CLOCK,
  COORDINATOR_CONFIG,
  COORDINATOR_LOGGER,
  KSERVE_CLIENTS,
  REDIS_CLIENT,
} from './coordinator-tokens';
import { KServeBackendFleet } from './rollout/adapters/kserve-backend-fleet';
import { RedisDesiredVersions } from './rollout/adapters/redis-desired-versions';
import { RepositoryModelCatalog } from './rollout/adapters/repository-model-catalog';
import { RoutingRouteStore } from './rollout/adapters/routing-route-store';
import { LeaderLease } from './leader/leader-lease';
import type { Clock } from './rollout/rollout-ports';
import { RolloutRepository } from './rollout/rollout.repository';

const systemClock: Clock = { now: () => Date.now() };

/** A store over the coordinator's Redis connection. */
function store<T>(provide: abstract new (...args: never[]) => T, make: Make<T>): Provider {
  return { provide, inject: [REDIS_CLIENT, COORDINATOR_CONFIG], useFactory: make };
}
type Make<T> = (redis: RedisClient, config: CoordinatorConfig) => T;

const STORES: Provider[] = [
  store(
    RoutingTableRepository,
    (r, c) => new RoutingTableRepository(r, { keyPrefix: c.REDIS_KEY_PREFIX }),
  ),
  store(
    RouterHeartbeatRepository,
    (r, c) => new RouterHeartbeatRepository(r, { keyPrefix: c.REDIS_KEY_PREFIX }),
  ),
  store(
    RedisTrafficSignalSource,
    (r, c) => new RedisTrafficSignalSource(r, { keyPrefix: c.REDIS_KEY_PREFIX }),
  ),
  store(RolloutRepository, (r, c) => new RolloutRepository(r, c.REDIS_KEY_PREFIX)),
  store(RedisDesiredVersions, (r, c) => new RedisDesiredVersions(r, c.REDIS_KEY_PREFIX)),
  store(JobPinReader, (r, c) => new JobPinReader(r, c.REDIS_KEY_PREFIX)),
  store(
    JobRepository,
    (r, c) =>
      new JobRepository(r, {
        keyPrefix: c.REDIS_KEY_PREFIX,
        retentionSeconds: c.JOBS_RETENTION_SECONDS,
      }),
  ),
  store(LeaderLease, (r, c) => {
    const holder = c.COORDINATOR_ID || `${hostname()}-${process.pid}`;
    return new LeaderLease(r, routingKeys(c.REDIS_KEY_PREFIX), holder, c.COORDINATOR_LEASE_MS);
  }),
  {
    provide: RoutingRouteStore,
    inject: [RoutingTableRepository, LeaderLease],
    useFactory: (table: RoutingTableRepository, lease: LeaderLease) =>
      new RoutingRouteStore(table, () => lease.fence),
  },
];

/**
 * What every coordinator module shares: config, logger, clock, the admin key, the KServe
 * channels and the backend fleet over them, and the Redis-backed stores. Global, so feature modules inject without re-importing.
 */
@Module({})
export class CoordinatorCoreModule {
  static register(config: CoordinatorConfig, logger: Logger, registry: Registry): DynamicModule {
    const shared: Provider[] = [
      { provide: COORDINATOR_CONFIG, useValue: config },
      { provide: COORDINATOR_LOGGER, useValue: logger },
      { provide: CLOCK, useValue: systemClock },
      { provide: METRICS_REGISTRY, useValue: registry },
      { provide: AdminAuthenticator, useValue: new AdminAuthenticator(config.ADMIN_API_KEY) },
      { provide: ADMIN_AUTHENTICATOR, useExisting: AdminAuthenticator },
      { provide: KSERVE_CLIENTS, useFactory: () => kserveClients(config) },
      {
        provide: RepositoryModelCatalog,
        useValue: new RepositoryModelCatalog(config.MODEL_REPOSITORY),
      },
      {
        provide: KServeBackendFleet,
        inject: [KSERVE_CLIENTS, RepositoryModelCatalog],
        useFactory: (clients: KServeClient[], catalog: RepositoryModelCatalog) =>
          new KServeBackendFleet(
            clients,
            catalog,
            config.KSERVE_PROBE_DEADLINE_MS,
            config.COORDINATOR_LOAD_DEADLINE_MS,
          ),
      },
    ];
    const providers = [...shared, ...STORES];
    return {
      module: CoordinatorCoreModule,
      global: true,
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}

/** One channel per backend; the runtime closes them after the leader loop stops. */
function kserveClients(config: CoordinatorConfig): KServeClient[] {
  const kserve = kservePoolOptionsFromEnv(config);
  const pkg = loadInferencePackage();
  return kserve.endpoints.map(
    (address) =>
      new KServeClient({
        address,
        credentials: createChannelCredentials(kserve.tls),
        maxMessageBytes: config.KSERVE_MAX_MESSAGE_BYTES,
        pkg,
      }),
  );
}
