import type { RedisClient } from '@mesh/config';
import { PlacementKeys, parseVersionKey } from '@mesh/placement';

export type LoadedListener = (model: string, version: number, backend: string) => void;

/**
 * The placer's "loaded" notices (`model@version@backend` on the placement loaded channel), for
 * routers and workers holding work for a cold version: a notice says to look at the backends
 * now instead of at the next discovery round. Plain SUBSCRIBE, which ioredis runs on a single
 * Redis, Sentinel and a Cluster alike (a Cluster forwards PUBLISH to every node). Notices are
 * hints: one lost to a reconnect only delays a wait until the next discovery round.
 */
export class LoadedVersionsFeed {
  private readonly channel: string;
  private readonly listeners = new Set<LoadedListener>();
  private subscribed = false;

  /** `subscriber`: a connection of its own in subscriber mode; the caller opens and closes it. */
  constructor(
    private readonly subscriber: RedisClient,
    keyPrefix: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.channel = new PlacementKeys(keyPrefix).loadedChannel();
  }

  async start(): Promise<void> {
    if (this.subscribed) return;
    this.subscribed = true;
    this.subscriber.on('message', this.onMessage);
    this.subscriber.on('error', this.onError);
    await this.subscriber.subscribe(this.channel);
  }

  /** Calls `listener` for every notice; returns its removal. */
  onLoaded(listener: LoadedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    if (!this.subscribed) return;
    this.subscribed = false;
    this.subscriber.off('message', this.onMessage);
    this.subscriber.off('error', this.onError);
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  // Bound, so close() removes exactly this handler from a connection it does not own.
  private readonly onMessage = (channel: string, message: string): void => {
    if (channel !== this.channel) return;
    const at = message.lastIndexOf('@');
    if (at <= 0) return;
    const ref = parseVersionKey(message.slice(0, at));
    if (!ref) return;
    const backend = message.slice(at + 1);
    for (const listener of this.listeners) listener(ref.model, ref.version, backend);
  };
}
