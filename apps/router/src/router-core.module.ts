import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { KServeBackends, VersionCatalog } from '@mesh/inference';
import { kservePoolOptionsFromEnv } from '@mesh/kserve';
import { AdminAuthenticator } from '@mesh/tenancy';
import { ADMIN_AUTHENTICATOR, METRICS_REGISTRY, createMetricsRegistry } from '@mesh/telemetry';
import type { Logger } from 'pino';
import { AccessLog } from './access-log';
import type { RouterConfig } from '@mesh/app-config';
import { LOGGER, ROUTER_CONFIG } from './router-tokens';

/**
 * What every router module shares: config, logger, the model catalog, metrics, the access log,
 * the admin key and the backend pool. Global, so feature modules inject it without importing.
 */
@Module({})
export class RouterCoreModule {
  static register(config: RouterConfig, logger: Logger, catalog: VersionCatalog): DynamicModule {
    const providers: Provider[] = [
      { provide: ROUTER_CONFIG, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: VersionCatalog, useValue: catalog },
      { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('router') },
      { provide: AccessLog, useValue: new AccessLog(logger, config.ROUTER_ACCESS_LOG_SAMPLE) },
      { provide: ADMIN_AUTHENTICATOR, useValue: new AdminAuthenticator(config.ADMIN_API_KEY) },
      {
        provide: KServeBackends,
        useFactory: () => new KServeBackends(kservePoolOptionsFromEnv(config), logger),
      },
    ];
    return {
      module: RouterCoreModule,
      global: true,
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
