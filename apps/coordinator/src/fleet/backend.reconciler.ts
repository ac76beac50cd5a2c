import type { Logger } from 'pino';
import type { DesiredVersions, RouteStore } from '../rollout/rollout.ports';
import type { KServeBackendFleet } from './kserve-backend.fleet';

/**
 * Brings backends back to the versions rollouts decided: a backend that restarted (and loaded
 * whatever its config.pbtxt selects, or nothing) is loaded again with the desired versions.
 * A version a route names is always desired, even if a rollout retired it since: a reseed, a
 * reset or an admin edit that brings an old version back onto a route gets it loaded again
 * instead of leaving the route naming a version no backend serves. The union is taken on each
 * pass and not written back, so a pass that reads between a rollout's last route write and
 * its retirement loads the old version once more at worst, and the next pass unloads it.
 */
export class BackendReconciler {
  constructor(
    private readonly fleet: Pick<KServeBackendFleet, 'readyVersions' | 'serve'>,
    private readonly desired: DesiredVersions,
    private readonly routes: Pick<RouteStore, 'routesOfModel'>,
    private readonly logger: Logger,
  ) {}

  /** One pass over every model a rollout touched; resolves to the number of loads issued. */
  async reconcile(): Promise<number> {
    let loads = 0;
    for (const [model, stored] of await this.desired.all()) {
      const versions = await this.withRouted(model, stored);
      const actual = await this.fleet.readyVersions(model);
      const drifted = [...actual.entries()]
        .filter(([, v]) => !(v instanceof Error) && v.join(',') !== versions.join(','))
        .map(([address, v]) => ({ address, versions: v as number[] }));
      if (drifted.length === 0) continue;
      for (const d of drifted) {
        this.logger.info(
          { event: 'reconcile', model, backend: d.address, serving: d.versions, desired: versions },
          'backend drifted from the desired versions; loading them',
        );
      }
      try {
        await this.fleet.serve(
          model,
          versions,
          drifted.map((d) => d.address),
        );
        loads += drifted.length;
      } catch (err: unknown) {
        this.logger.warn({ err, model }, 'reconcile load failed; retrying on the next pass');
      }
    }
    return loads;
  }

  /** The stored versions plus every version a route of the model names (weights or shadow). */
  private async withRouted(model: string, stored: number[]): Promise<number[]> {
    const set = new Set(stored);
    for (const route of await this.routes.routesOfModel(model)) {
      for (const v of route.versions) set.add(v.version);
      if (route.shadow) set.add(route.shadow.version);
    }
    return [...set].sort((a, b) => a - b);
  }
}
