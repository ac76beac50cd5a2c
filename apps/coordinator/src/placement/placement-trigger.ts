import type { RedisClient } from '@mesh/config';
import type { Logger } from 'pino';

/**
 * Runs a placement pass soon after a router or worker asks for a cold version (a message on
 * the demand channel), instead of at the next reconcile: asks arriving together share one
 * pass (debounced), and the placer never runs two at once. Only the leader places.
 */
export class PlacementTrigger {
  private timer: NodeJS.Timeout | undefined;
  private listening = false;

  constructor(
    /** A connection of its own in subscriber mode; opened and closed by RedisModule. */
    private readonly subscriber: RedisClient,
    private readonly channel: string,
    private readonly pass: () => Promise<unknown>,
    private readonly isLeader: () => boolean,
    private readonly logger: Logger,
    private readonly debounceMs = 50,
  ) {}

  /**
   * Listens from now on; resolves once subscribed. Never rejects: without the subscription the
   * placer still runs on the reconcile cadence (ioredis subscribes again after a reconnect).
   */
  async start(): Promise<void> {
    this.listening = true;
    this.subscriber.on('message', this.onMessage);
    await this.subscriber.subscribe(this.channel).catch((err: unknown) => {
      this.logger.warn(
        { err },
        'placement demand channel: subscribe failed; passes keep their cadence',
      );
    });
  }

  async stop(): Promise<void> {
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.subscriber.off('message', this.onMessage);
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  private readonly onMessage = (channel: string): void => {
    if (channel !== this.channel || !this.listening || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.isLeader()) return;
      this.pass().catch((err: unknown) => {
        this.logger.warn(
          { err },
          'placement pass after a demand failed; the next reconcile retries',
        );
      });
    }, this.debounceMs);
  };
}
