import type { RedisClient } from '@mesh/config';
import { RouteResolver, type ResolvedRoute } from './route-resolver';
import type { RoutingTableRepository } from './routing-table.repository';
import type { Route, RoutingTable, Tenant } from './routing.types';

/** Minimal logger shape (pino's Logger fits). */
export interface RoutingLogger {
  warn(obj: object, msg: string): void;
}

export interface RoutingTableCacheOptions {
  /** Safety-net reload period for missed pub/sub messages; default 5000 ms. */
  refreshIntervalMs?: number;
  logger?: RoutingLogger;
}

export type RoutingTableListener = (table: RoutingTable, previous: RoutingTable) => void;

const EMPTY: RoutingTable = { epoch: 0, tenants: [], routes: [] };

/**
 * A router's in-memory copy of the routing table. Loads at start, reloads when the change
 * channel announces a newer epoch and on a timer, and never goes back to an older epoch.
 */
export class RoutingTableCache {
  private resolver = new RouteResolver(EMPTY);
  private loaded = false;
  private subscribed = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<RoutingTableListener>();
  private inFlight: Promise<void> | null = null;
  private pending = false;
  private closed = false;
  private readonly refreshIntervalMs: number;

  /**
   * `subscriber`: a connection of its own (it enters subscriber mode); the caller opens it with
   * the subscriber role and closes it after `close()`.
   */
  constructor(
    private readonly repository: RoutingTableRepository,
    private readonly subscriber: RedisClient,
    private readonly options: RoutingTableCacheOptions = {},
  ) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5000;
  }

  /** Subscribes first, then loads, so a change between the two cannot be missed. */
  async start(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscribed = true;
    subscriber.on('message', this.onMessage);
    // After a reconnect, messages sent while away are lost: reload once.
    subscriber.on('ready', this.onReconnect);
    subscriber.on('error', this.onSubscriberError);
    await subscriber.subscribe(this.repository.keys.channel);
    await this.refresh();
    this.timer = setInterval(() => void this.refreshQuietly('timer'), this.refreshIntervalMs);
    this.timer.unref();
  }

  /** The table in use; epoch 0 and empty until a seeded table was loaded. */
  current(): RoutingTable {
    return this.resolver.table;
  }

  isLoaded(): boolean {
    return this.loaded;
  }

  tenant(name: string): Tenant | undefined {
    return this.resolver.tenant(name);
  }

  resolve(tenantName: string, task: string): ResolvedRoute {
    return this.resolver.resolve(tenantName, task);
  }

  tasksFor(tenantName: string): Route[] {
    return this.resolver.tasksFor(tenantName);
  }

  /** Called after each newer table is installed; returns an unsubscribe function. */
  onChange(listener: RoutingTableListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reloads now; concurrent calls share one load plus at most one follow-up. */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.pending = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      try {
        do {
          this.pending = false;
          await this.loadOnce();
        } while (this.pending && !this.closed);
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
    if (this.subscribed) {
      this.subscribed = false;
      this.subscriber.off('message', this.onMessage);
      this.subscriber.off('ready', this.onReconnect);
    }
    await this.inFlight?.catch(() => undefined);
  }

  private async loadOnce(): Promise<void> {
    if (this.closed) return;
    const table = await this.repository.load();
    const previous = this.resolver.table;
    if (!table || (this.loaded && table.epoch <= previous.epoch)) return;
    this.resolver = new RouteResolver(table);
    this.loaded = true;
    for (const listener of this.listeners) {
      try {
        listener(table, previous);
      } catch (err: unknown) {
        this.warn('listener', err);
      }
    }
  }

  // Bound handlers, so close() removes exactly these from a connection it does not own.
  private readonly onMessage = (_channel: string, message: string): void => {
    const epoch = Number(message);
    // Stale or duplicate announcements need no reload; garbage ones get one to be safe.
    if (Number.isFinite(epoch) && this.loaded && epoch <= this.resolver.table.epoch) return;
    void this.refreshQuietly('message');
  };

  private readonly onReconnect = (): void => void this.refreshQuietly('reconnect');

  private readonly onSubscriberError = (err: unknown): void => this.warn('subscriber', err);

  private async refreshQuietly(trigger: string): Promise<void> {
    try {
      await this.refresh();
    } catch (err: unknown) {
      this.warn(trigger, err);
    }
  }

  private warn(trigger: string, err: unknown): void {
    this.options.logger?.warn(
      { err, trigger, epoch: this.resolver.table.epoch },
      `routing table cache: ${trigger} failed; keeping the table at its current epoch`,
    );
  }
}
