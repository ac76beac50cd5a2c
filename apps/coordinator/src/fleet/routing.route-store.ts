import {
  FencedWriteError,
  type Fence,
  type RoutingTableRepository,
  type VersionWeight,
} from '@mesh/routing';
import type { RouteSnapshot, RouteStore } from '../rollout/rollout.ports';

/** The routing table through its epoch compare-and-swap, fenced by the leader's lease (always). */
export class RoutingRouteStore implements RouteStore {
  constructor(
    private readonly table: RoutingTableRepository,
    private readonly fence: () => Fence | undefined,
  ) {}

  async get(tenant: string, task: string): Promise<RouteSnapshot | undefined> {
    const table = await this.table.load();
    const route = table?.routes.find((r) => r.tenant === tenant && r.task === task);
    return table && route ? { route, epoch: table.epoch } : undefined;
  }

  async routesOfModel(model: string) {
    return ((await this.table.load())?.routes ?? []).filter((r) => r.model === model);
  }

  async setVersions(
    tenant: string,
    task: string,
    versions: VersionWeight[],
    options: { expectedEpoch: number; who: string },
  ): Promise<number> {
    const snapshot = await this.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    // Only a leader writes; without a lease there is no token, and no write.
    const fence = this.fence();
    if (!fence) throw new FencedWriteError(0);
    const result = await this.table.upsertRoute(
      { ...snapshot.route, versions },
      { who: options.who, expectedEpoch: options.expectedEpoch, fence },
    );
    return result.epoch;
  }
}
