import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { KServeBackends, VersionCatalog } from '@mesh/inference';
import {
  seedFromMeshConfig,
  type RoutingTableCache,
  type RoutingTableRepository,
} from '@mesh/routing';
import type { Logger } from 'pino';
import type { RouterConfig } from './router.config';

/**
 * Start and stop order of the router's long-lived work: seed the routing table if Redis has
 * none (atomic, so routers starting together do not race), subscribe to route changes, start
 * backend discovery; on shutdown stop discovery, then the subscription (Redis closes last).
 */
export class RouterLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly config: RouterConfig,
    private readonly logger: Logger,
    private readonly repository: RoutingTableRepository,
    private readonly routes: RoutingTableCache,
    private readonly backends: KServeBackends,
    private readonly catalog: VersionCatalog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.seedIfAbsent();
    await this.routes.start();
    await this.backends.start(this.catalog.all());
    const table = this.routes.current();
    this.logger.info(
      {
        event: 'routes-loaded',
        epoch: table.epoch,
        routes: table.routes.length,
        tenants: table.tenants.length,
      },
      'routing table loaded',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backends.close();
    await this.routes.close();
  }

  /** An invalid seed file refuses boot with the list of problems (RoutingValidationError). */
  private async seedIfAbsent(): Promise<void> {
    const result = await seedFromMeshConfig(this.repository, this.config.MESH_CONFIG, {
      who: 'router-seed',
    });
    this.logger.info(
      { event: 'seed', seeded: result.seeded, epoch: result.epoch },
      'routing table seed',
    );
  }
}
