import {
  readMeshConfigFile,
  type AuditEntry,
  type ChangeResult,
  type Route,
  type RoutingTable,
  type RoutingTableCache,
  type RoutingTableRepository,
  type Tenant,
} from '@mesh/routing';
import type { RouteSelector } from '../core/route.selector';

export interface RouteStatus extends Route {
  /** Per version: undefined when routable, else why not (the same reason a 503 would give). */
  unroutable: Record<string, string>;
}

/**
 * Admin edits of the routing table. Each change goes to Redis (audited, epoch bumped,
 * announced on pub/sub to every router) and this router reloads at once.
 */
export class AdminService {
  constructor(
    private readonly repository: RoutingTableRepository,
    private readonly cache: RoutingTableCache,
    private readonly selector: RouteSelector,
    private readonly meshConfigFile: string,
  ) {}

  table(): RoutingTable {
    return this.cache.current();
  }

  routes(): RouteStatus[] {
    return this.cache.current().routes.map((route) => {
      const unroutable: Record<string, string> = {};
      for (const v of [
        ...route.versions.map((x) => x.version),
        ...(route.shadow ? [route.shadow.version] : []),
      ]) {
        const reason = this.selector.unroutableReason(route.model, v);
        if (reason !== undefined) unroutable[String(v)] = reason;
      }
      return { ...route, unroutable };
    });
  }

  async upsertRoute(route: Route, who: string, expectedEpoch?: number): Promise<ChangeResult> {
    return this.applied(await this.repository.upsertRoute(route, opts(who, expectedEpoch)));
  }

  async deleteRoute(
    tenant: string,
    task: string,
    who: string,
    expectedEpoch?: number,
  ): Promise<ChangeResult> {
    return this.applied(await this.repository.deleteRoute(tenant, task, opts(who, expectedEpoch)));
  }

  async upsertTenant(tenant: Tenant, who: string, expectedEpoch?: number): Promise<ChangeResult> {
    return this.applied(await this.repository.upsertTenant(tenant, opts(who, expectedEpoch)));
  }

  async deleteTenant(name: string, who: string, expectedEpoch?: number): Promise<ChangeResult> {
    return this.applied(await this.repository.deleteTenant(name, opts(who, expectedEpoch)));
  }

  audit(limit: number): Promise<AuditEntry[]> {
    return this.repository.auditLog(limit);
  }

  /** Replaces the stored table with MESH_CONFIG (the explicit reseed). */
  async reseed(who: string): Promise<ChangeResult> {
    const data = await readMeshConfigFile(this.meshConfigFile);
    return this.applied(await this.repository.reseed(data, who));
  }

  private async applied(result: ChangeResult): Promise<ChangeResult> {
    await this.cache.refresh();
    return result;
  }
}

function opts(who: string, expectedEpoch: number | undefined) {
  return expectedEpoch === undefined ? { who } : { who, expectedEpoch };
}
