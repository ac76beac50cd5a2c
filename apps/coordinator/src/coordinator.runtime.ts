import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { KServeClient } from '@mesh/kserve';
import type { RolloutRunner } from './rollout/rollout.runner';

/**
 * Owns the coordinator's long-lived resources: starts the leader loop once the app is up
 * (never at construction) and on shutdown stops it, hands back the lease, closes channels.
 * Redis closes after it (RedisModule).
 */
export class CoordinatorRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly clients: readonly KServeClient[],
    private readonly runner: RolloutRunner,
  ) {}

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
    for (const client of this.clients) client.close();
  }
}
