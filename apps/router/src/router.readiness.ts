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
