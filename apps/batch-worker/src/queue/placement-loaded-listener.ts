import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { LoadedVersionsFeed } from '@mesh/inference';
import type { Logger } from 'pino';
import type { ChunkInference } from '../core/chunk-inference';

/**
 * On the placer's loaded notice, looks at the backends at once, so a chunk parked for a cold
 * version finds it served when it comes back from its wait instead of a discovery round later.
 * Without the subscription parked chunks still resume, through discovery alone.
 */
export class PlacementLoadedListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private unlisten?: () => void;

  constructor(
    private readonly feed: LoadedVersionsFeed,
    private readonly inference: Pick<ChunkInference, 'refresh'>,
    private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.unlisten = this.feed.onLoaded((model, version) => {
      this.logger.debug({ event: 'version-loaded-notice', model, version }, 'placer loaded');
      void this.inference.refresh?.().catch((err: unknown) => {
        this.logger.warn({ err }, 'discovery after a loaded notice failed');
      });
    });
    await this.feed
      .start()
      .catch((err: unknown) =>
        this.logger.warn({ err }, 'placement loaded notices unavailable; parked chunks poll only'),
      );
  }

  /** Before the backends close with the queue workers: no discovery after that. */
  async beforeApplicationShutdown(): Promise<void> {
    this.unlisten?.();
    await this.feed.close();
  }
}
