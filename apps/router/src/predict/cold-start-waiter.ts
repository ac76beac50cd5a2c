import { ModelLoadingError } from '../errors/router.errors';

export type ColdStartOutcome = 'loaded' | 'timeout';

/** Timers the waiter runs on (injected by tests, so no spec waits for real time). */
export interface ColdStartClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What the waiter needs of the router: its view of the backends, the demand, the metric. */
export interface ColdStartPorts {
  /** True once the version is READY on a backend that serves the manifest's bytes. */
  isReady(model: string, version: number): boolean;
  /**
   * One discovery and verification round that starts after the call (concurrent callers share
   * it): a round begun before a miss or a loaded notice could answer with the state before it.
   */
  refresh(): Promise<void>;
  /** Records the cold-start ask for the placer (PlacementDemand.request). */
  demand(model: string, version: number): Promise<void>;
  observe(model: string, version: number, outcome: ColdStartOutcome, seconds: number): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface ColdStartOptions {
  /** ROUTER_COLD_START_WAIT_MS: how long a request waits; 0 answers MODEL_LOADING at once. */
  waitMs: number;
  /** Discovery rounds while a version is awaited (a loaded notice triggers one at once). */
  refreshEveryMs: number;
  /**
   * How often a wait renews its demand. The placer clears a demand once it has loaded the
   * version; a copy evicted again before this router saw it READY would otherwise leave the
   * wait asking nobody. A loaded notice followed by a round that still finds the version
   * missing renews it at once.
   */
  askAgainEveryMs: number;
}

interface Waiter {
  startedAt: number;
  timer: unknown;
  resolve: () => void;
  reject: (err: Error) => void;
  detach: () => void;
}

/** The one wait of a version: its waiters, its discovery timer and whether a round runs. */
interface VersionWait {
  model: string;
  version: number;
  waiters: Set<Waiter>;
  timer?: unknown;
  refreshing: boolean;
  /** A loaded notice came during a round: run one more right after it. */
  again: boolean;
  /** When the demand was last written. */
  askedAt: number;
  /** A loaded notice came since the last ask: the placer answered it and cleared the demand. */
  answered: boolean;
}

const realClock: ColdStartClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Cold starts (a routed version resident on no backend): asks the placer once per version and
 * holds the requests for it until a backend serves it verified, or each one's wait runs out
 * (MODEL_LOADING, with Retry-After). Concurrent requests for a version share one wait: one
 * demand write, one throttled discovery loop, and one round at once on a loaded notice.
 */
export class ColdStartWaiter {
  private readonly waits = new Map<string, VersionWait>();
  /** When a version was last asked for while not waiting (waitMs 0), so a burst asks once. */
  private readonly askedAt = new Map<string, number>();

  constructor(
    private readonly ports: ColdStartPorts,
    private readonly options: ColdStartOptions,
    private readonly clock: ColdStartClock = realClock,
  ) {}

  /** Whole seconds a refused caller should wait: about one discovery round. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.options.refreshEveryMs / 1000));
  }

  /**
   * Resolves once the version is READY and verified somewhere; rejects with ModelLoadingError
   * past the wait, or with `abortReason` when the caller leaves first.
   */
  wait(model: string, version: number, signal?: AbortSignal): Promise<void> {
    if (this.ports.isReady(model, version)) return Promise.resolve();
    if (this.options.waitMs <= 0) return this.refuseAtOnce(model, version);
    const k = `${model}@${version}`;
    let shared = this.waits.get(k);
    if (!shared) {
      shared = {
        model,
        version,
        waiters: new Set(),
        refreshing: false,
        again: false,
        askedAt: this.clock.now(),
        answered: false,
      };
      this.waits.set(k, shared);
      this.ask(model, version);
      this.schedule(shared);
    }
    return this.join(shared, signal);
  }

  /**
   * For a call that found the version gone from the backends it was routed to (unloaded since
   * the last discovery round): the router's view is stale, so look at the backends first, then
   * wait as for any cold version (at once when another backend still holds it).
   */
  async waitAfterMiss(model: string, version: number, signal?: AbortSignal): Promise<void> {
    await this.ports
      .refresh()
      .catch((err: unknown) => this.ports.warn({ err }, 'cold-start discovery failed'));
    return this.wait(model, version, signal);
  }

  /** A `model@version@backend` notice from the placer: look at the backends now. */
  loaded(model: string, version: number): void {
    const shared = this.waits.get(`${model}@${version}`);
    if (!shared) return;
    shared.answered = true;
    void this.round(shared);
  }

  /** Versions being waited for now, with their waiter counts (for tests and logs). */
  pending(): { model: string; version: number; waiters: number }[] {
    return [...this.waits.values()].map((w) => ({
      model: w.model,
      version: w.version,
      waiters: w.waiters.size,
    }));
  }

  private refuseAtOnce(model: string, version: number): Promise<void> {
    const k = `${model}@${version}`;
    const now = this.clock.now();
    const last = this.askedAt.get(k);
    if (last === undefined || now - last >= this.options.refreshEveryMs) {
      this.askedAt.set(k, now);
      this.ask(model, version);
    }
    this.ports.observe(model, version, 'timeout', 0);
    return Promise.reject(new ModelLoadingError(model, version, this.retryAfterSeconds));
  }

  private ask(model: string, version: number): void {
    // Best effort: without Redis the placer cannot hear it, but a load already under way
    // (or one a rollout makes) still ends the wait through discovery.
    this.ports
      .demand(model, version)
      .catch((err: unknown) =>
        this.ports.warn({ err, model, version }, 'cold-start demand could not be recorded'),
      );
  }

  private join(shared: VersionWait, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const { model, version } = shared;
      const onAbort = (): void => {
        this.leave(shared, waiter);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('caller left'));
      };
      const waiter: Waiter = {
        startedAt: this.clock.now(),
        timer: this.clock.setTimeout(() => {
          this.leave(shared, waiter);
          this.ports.observe(model, version, 'timeout', this.seconds(waiter));
          reject(new ModelLoadingError(model, version, this.retryAfterSeconds));
        }, this.options.waitMs),
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      if (signal?.aborted) {
        this.clock.clearTimeout(waiter.timer);
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      shared.waiters.add(waiter);
    });
  }

  /** Removes one waiter; the version's wait stops with its last waiter. */
  private leave(shared: VersionWait, waiter: Waiter): void {
    this.clock.clearTimeout(waiter.timer);
    waiter.detach();
    shared.waiters.delete(waiter);
    if (shared.waiters.size > 0) return;
    this.clock.clearTimeout(shared.timer);
    if (this.waits.get(`${shared.model}@${shared.version}`) === shared) {
      this.waits.delete(`${shared.model}@${shared.version}`);
    }
  }

  private schedule(shared: VersionWait): void {
    this.clock.clearTimeout(shared.timer);
    shared.timer = this.clock.setTimeout(
      () => void this.round(shared),
      this.options.refreshEveryMs,
    );
  }

  /** One discovery round for the version's waiters; rounds of one version never overlap. */
  private async round(shared: VersionWait): Promise<void> {
    if (shared.refreshing) {
      shared.again = true;
      return;
    }
    shared.refreshing = true;
    this.clock.clearTimeout(shared.timer);
    try {
      do {
        shared.again = false;
        await this.ports
          .refresh()
          .catch((err: unknown) => this.ports.warn({ err }, 'cold-start discovery failed'));
        if (this.ports.isReady(shared.model, shared.version)) {
          this.settle(shared);
          return;
        }
      } while (shared.again && shared.waiters.size > 0);
    } finally {
      shared.refreshing = false;
    }
    if (shared.waiters.size === 0) return;
    this.askAgainIfStale(shared);
    this.schedule(shared);
  }

  /** Renews the demand of a wait the placer's answer did not end, or that waited long. */
  private askAgainIfStale(shared: VersionWait): void {
    const now = this.clock.now();
    if (!shared.answered && now - shared.askedAt < this.options.askAgainEveryMs) return;
    shared.answered = false;
    shared.askedAt = now;
    this.ask(shared.model, shared.version);
  }

  private settle(shared: VersionWait): void {
    for (const waiter of [...shared.waiters]) {
      this.leave(shared, waiter);
      this.ports.observe(shared.model, shared.version, 'loaded', this.seconds(waiter));
      waiter.resolve();
    }
  }

  private seconds(waiter: Waiter): number {
    return Math.max(0, this.clock.now() - waiter.startedAt) / 1000;
  }
}
