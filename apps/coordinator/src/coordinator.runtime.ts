import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { KServeClient } from '@mesh/kserve';
import type { RolloutRunner } from './rollout/rollout.runner';

/**
 * Owns the coordinator's long-lived resources: starts the leader loop once the app is up
 * (never at construction) and on shutdown stops it, hands back the lease, closes channels.
 */
export class CoordinatorRuntime implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly redis: Redis,
    private readonly clients: readonly KServeClient[],
    private readonly runner: RolloutRunner,
  ) {}

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
    for (const client of this.clients) client.close();
    // quit() would wait for a Redis that is down; only a ready connection is closed politely.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
