import type { BackendDirectory, VersionCatalog } from '@mesh/inference';
import type { RoutingTableCache } from '@mesh/routing';
import type { RouterHeartbeat, RouterHeartbeatRepository } from '@mesh/signals';
import type { Logger } from 'pino';
import type { VersionTraffic } from './version-traffic';

export interface HeartbeatOptions {
  routerId: string;
  intervalMs: number;
  /** Heartbeat key TTL; a router silent this long counts as gone. */
  ttlSeconds: number;
  now?: () => number;
}

/**
 * Publishes what this router can route (and why not), the routing epoch it applied and its
 * in-flight requests per version: on a timer, and at once when the routing table or the
 * routable set changes, so a rollout waiting on `canAllRoute` sees the change promptly.
 * Publishing is best-effort; a failed write is logged and retried on the next tick.
 */
export class HeartbeatPublisher {
  private timer?: NodeJS.Timeout;
  private publishing?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly repository: RouterHeartbeatRepository,
    private readonly routes: RoutingTableCache,
    private readonly catalog: VersionCatalog,
    private readonly backends: BackendDirectory,
    private readonly traffic: VersionTraffic,
    private readonly logger: Logger,
    private readonly options: HeartbeatOptions,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.publish();
    this.timer = setInterval(() => void this.publish(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops publishing and removes this router's heartbeat. */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.publishing;
    await this.repository
      .remove(this.options.routerId)
      .catch((err: unknown) => this.logger.warn({ err }, 'heartbeat removal failed'));
  }

  snapshot(): RouterHeartbeat {
    const routable: RouterHeartbeat['routable'] = [];
    const unroutable: RouterHeartbeat['unroutable'] = this.catalog.allProblems();
    // Routable means READY and verified now. A version resident nowhere (cold) stays out of
    // `routable` even though requests for it wait for its load: a rollout loads its version
    // before asking whether every router can route it, and must not pass on unchecked bytes.
    for (const v of this.catalog.all()) {
      const reason = this.backends.unroutableReason(v);
      if (reason === undefined) routable.push({ model: v.model, version: v.version });
      else unroutable.push({ model: v.model, version: v.version, reason });
    }
    const byName = (a: { model: string; version: number }, b: typeof a) =>
      a.model === b.model ? a.version - b.version : a.model.localeCompare(b.model);
    return {
      routerId: this.options.routerId,
      epoch: this.routes.isLoaded() ? this.routes.current().epoch : 0,
      at: (this.options.now ?? Date.now)(),
      routable: routable.sort(byName),
      unroutable: unroutable.sort(byName),
      inFlight: this.traffic.inFlightNow().sort(byName),
    };
  }

  /** Publishes now; a call during a publish schedules one more right after it. */
  publish(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.publishing) {
      this.again = true;
      return this.publishing;
    }
    this.publishing = this.repository
      .publish(this.snapshot(), this.options.ttlSeconds)
      .catch((err: unknown) => this.logger.warn({ err }, 'heartbeat publish failed'))
      .finally(() => {
        this.publishing = undefined;
        if (this.again) {
          this.again = false;
          void this.publish();
        }
      });
    return this.publishing;
  }
}
