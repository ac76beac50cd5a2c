import {
  FencedWriteError,
  type Fence,
  type Route,
  type RoutingTableRepository,
  type ShadowConfig,
  type VersionWeight,
} from '@mesh/routing';
import type { RouteChange, RouteSnapshot, RouteStore } from '../rollout-ports';

/** Audit entries looked at for changes since an epoch (the audit keeps 10 000 by default). */
const AUDIT_LOOKBACK = 1000;

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

  async changesSince(tenant: string, task: string, epoch: number): Promise<RouteChange[]> {
    const target = `${tenant}/${task}`;
    return (await this.table.auditLog(AUDIT_LOOKBACK))
      .filter((e) => e.epoch > epoch && (e.target === target || e.target === undefined))
      .map((e) => ({ epoch: e.epoch, who: e.who, action: e.action }))
      .reverse();
  }

  setVersions(
    tenant: string,
    task: string,
    versions: VersionWeight[],
    options: { expectedEpoch: number; who: string },
  ): Promise<number> {
    return this.edit(tenant, task, options, (route) => ({ ...route, versions }));
  }

  setShadow(
    tenant: string,
    task: string,
    shadow: ShadowConfig | undefined,
    options: { expectedEpoch: number; who: string },
  ): Promise<number> {
    return this.edit(tenant, task, options, ({ shadow: _old, ...route }) =>
      shadow ? { ...route, shadow } : route,
    );
  }

  private async edit(
    tenant: string,
    task: string,
    options: { expectedEpoch: number; who: string },
    change: (route: Route) => Route,
  ): Promise<number> {
    const snapshot = await this.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    // Only a leader writes; without a lease there is no token, and no write.
    const fence = this.fence();
    if (!fence) throw new FencedWriteError(0);
    const result = await this.table.upsertRoute(change(snapshot.route), {
      who: options.who,
      expectedEpoch: options.expectedEpoch,
      fence,
    });
    return result.epoch;
  }
}
