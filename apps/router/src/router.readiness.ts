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

/** Ready once at least one backend answered discovery. */
export class BackendReadyCheck implements ReadinessCheck {
  readonly name = 'backends';

  constructor(private readonly backends: BackendDirectory) {}

  async check(): Promise<ReadinessResult> {
    const n = this.backends.healthyBackends();
    return n > 0
      ? { ready: true, detail: `${n} ready` }
      : { ready: false, detail: 'no backend is ready' };
  }
}
