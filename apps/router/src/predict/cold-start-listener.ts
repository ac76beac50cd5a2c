import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { LoadedVersionsFeed } from '@mesh/inference';
import type { Logger } from 'pino';
import type { ColdStartWaiter } from './cold-start-waiter';

/**
 * Hands the placer's loaded notices to the cold-start waiter, so a request held for a version
 * is answered right after the load instead of at the waiter's next discovery round. A router
 * that cannot subscribe still serves: its waits end through discovery alone.
 */
export class ColdStartListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private unlisten?: () => void;

  constructor(
    private readonly feed: LoadedVersionsFeed,
    private readonly waiter: ColdStartWaiter,
    private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unlisten = this.feed.onLoaded((model, version) => this.waiter.loaded(model, version));
    await this.feed
      .start()
      .catch((err: unknown) =>
        this.logger.warn({ err }, 'placement loaded notices unavailable; cold starts poll only'),
      );
  }

  async onApplicationShutdown(): Promise<void> {
    this.unlisten?.();
    await this.feed.close();
  }
}
