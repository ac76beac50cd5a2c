import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { KServeBackends, VersionCatalog } from '@mesh/inference';
import {
  describeSeed,
  seedFromMeshConfig,
  type RoutingTableCache,
  type RoutingTableRepository,
} from '@mesh/routing';
import type { TrafficSignalRecorder } from '@mesh/signals';
import type { Logger } from 'pino';
import type { HeartbeatPublisher } from './signals/heartbeat-publisher';
import type { RouterConfig } from '@mesh/app-config';

/** What the router shares with rollouts and dashboards through Redis. */
export interface RouterSignals {
  heartbeat: HeartbeatPublisher;
  recorder: TrafficSignalRecorder;
}

/**
 * Start and stop order of the router's long-lived work: seed the routing table if Redis has
 * none (atomic, so routers starting together do not race), subscribe to route changes, start
 * backend discovery (one loop: backends, repository, verification), then the heartbeat and the
signal flusher; on shutdown remove the heartbeat, stop discovery and the subscription, and
write the last signals (Redis closes last).
 */
export class RouterLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly config: RouterConfig,
    private readonly logger: Logger,
    private readonly repository: RoutingTableRepository,
    private readonly routes: RoutingTableCache,
    private readonly backends: KServeBackends,
    private readonly catalog: VersionCatalog,
    private readonly signals: RouterSignals,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.seedIfAbsent();
    await this.routes.start();
    await this.backends.start(this.catalog);
    this.signals.recorder.start();
    await this.signals.heartbeat.start();
    // A rollout waits on heartbeats: publish at once when the table or the routable set moves.
    this.routes.onChange(() => void this.signals.heartbeat.publish());
    this.backends.onChange(() => void this.signals.heartbeat.publish());
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
    await this.signals.heartbeat.close();
    await this.backends.close();
    await this.routes.close();
    await this.signals.recorder.close();
  }

  /**
   * An invalid seed file refuses boot with the list of problems (RoutingValidationError). The
   * line says "seeded" only when this router wrote the table; otherwise it kept the stored one.
   */
  private async seedIfAbsent(): Promise<void> {
    const file = this.config.MESH_CONFIG;
    const result = await seedFromMeshConfig(this.repository, file, { who: 'router-seed' });
    this.logger.info(
      { event: 'seed', seeded: result.seeded, epoch: result.epoch, file },
      describeSeed(result, file),
    );
  }
}
