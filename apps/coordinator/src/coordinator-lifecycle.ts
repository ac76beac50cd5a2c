import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { KServeClient } from '@mesh/kserve';
import type { PlacementTrigger } from './placement/placement-trigger';
import type { RolloutRunner } from './rollout/rollout-runner';

/**
 * Owns the coordinator's long-lived resources: starts the leader loop and the placer's demand
 * listener once the app is up (never at construction) and on shutdown stops them, hands back
 * the lease, closes channels. Redis closes after it (RedisModule).
 */
export class CoordinatorLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly clients: readonly KServeClient[],
    private readonly runner: RolloutRunner,
    private readonly trigger?: PlacementTrigger,
  ) {}

  onApplicationBootstrap(): void {
    this.runner.start();
    // Not awaited: a Redis still starting must not hold up the boot (passes keep their cadence).
    void this.trigger?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.trigger?.stop();
    await this.runner.stop();
    for (const client of this.clients) client.close();
  }
}
