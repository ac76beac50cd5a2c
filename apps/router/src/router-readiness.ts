import type { BackendDirectory } from '@mesh/inference';
import type { RoutingTableCache } from '@mesh/routing';
import type { ReadinessCheck, ReadinessResult } from '@mesh/telemetry';

/** Ready once a seeded routing table is in memory. */
export class RoutesLoadedCheck implements ReadinessCheck {
  readonly name = 'routes';

  constructor(private readonly routes: RoutingTableCache) {}

  async check(): Promise<ReadinessResult> {
    if (!this.routes.isLoaded()) return { ready: false, detail: 'routing table not loaded' };
    const t = this.routes.current();
    return { ready: true, detail: `epoch ${t.epoch}, ${t.routes.length} routes` };
  }
}

/**
 * Keeps a fresh router out of its Service until at least one backend has answered discovery.
 * After that a backend outage is reported but does not make the router unready: every router
 * shares the same backends, so failing readiness would empty the router Service at once and
 * turn clear 503 answers ("no healthy backend serves ...") into connection errors.
 */
export class BackendReadyCheck implements ReadinessCheck {
  readonly name = 'backends';
  private seenReady = false;

  constructor(private readonly backends: BackendDirectory) {}

  async check(): Promise<ReadinessResult> {
    const n = this.backends.healthyBackends();
    if (n > 0) {
      this.seenReady = true;
      return { ready: true, detail: `${n} ready` };
    }
    return this.seenReady
      ? { ready: true, detail: 'no backend is ready now: predictions answer 503 until one is' }
      : { ready: false, detail: 'no backend has been ready yet' };
  }
}

/**
 * Redis is needed to boot (the routing table is seeded and loaded from it) but not to predict:
 * once the table is in memory, predictions route from the cache and rate limits fall back to
 * each router's in-memory limiter. So after that a Redis outage is reported but keeps the
 * router ready — failing readiness would empty the router Service exactly while the routers
 * could still answer. The ping gets `timeoutMs`, shorter than the readiness runner's own limit,
 * so the report says "unreachable" rather than "timed out".
 */
export class RedisReadyCheck implements ReadinessCheck {
  readonly name = 'redis';

  constructor(
    private readonly ping: ReadinessCheck,
    private readonly routes: Pick<RoutingTableCache, 'isLoaded'>,
    private readonly timeoutMs = 1000,
  ) {}

  async check(): Promise<ReadinessResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ReadinessResult>((resolve) => {
      timer = setTimeout(
        () => resolve({ ready: false, detail: `no answer within ${this.timeoutMs} ms` }),
        this.timeoutMs,
      );
    });
    const result = await Promise.race([
      this.ping.check().catch((err: unknown): ReadinessResult => ({
        ready: false,
        detail: err instanceof Error ? err.message : String(err),
      })),
      timeout,
    ]).finally(() => clearTimeout(timer));
    if (result.ready || !this.routes.isLoaded()) return result;
    return {
      ready: true,
      detail: `Redis unreachable (${result.detail}): predicting from the cached routing table; admin edits and jobs answer 503 until it is back`,
    };
  }
}
