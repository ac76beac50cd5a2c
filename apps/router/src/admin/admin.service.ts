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
import type { Logger } from 'pino';
import type { RouteSelector } from '../core/route.selector';

export interface RouteStatus extends Route {
  /** Per version: undefined when routable, else why not (the same reason a 503 would give). */
  unroutable: Record<string, string>;
}

/** Who the audit log names for edits made through the admin API (`ADMIN_ACTOR`). */
export interface AdminServiceOptions {
  meshConfigFile: string;
  actor: string;
  logger: Logger;
}

/**
 * Admin edits of the routing table. Each change goes to Redis (audited under the configured
 * actor, epoch bumped, announced on pub/sub to every router), is logged as one `admin-edit`
 * line, and this router reloads at once.
 */
export class AdminService {
  constructor(
    private readonly repository: RoutingTableRepository,
    private readonly cache: RoutingTableCache,
    private readonly selector: RouteSelector,
    private readonly options: AdminServiceOptions,
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

  async upsertRoute(route: Route, expectedEpoch?: number): Promise<ChangeResult> {
    const result = await this.repository.upsertRoute(route, this.opts(expectedEpoch));
    return this.applied('route.upsert', `${route.tenant}/${route.task}`, result);
  }

  async deleteRoute(tenant: string, task: string, expectedEpoch?: number): Promise<ChangeResult> {
    const result = await this.repository.deleteRoute(tenant, task, this.opts(expectedEpoch));
    return this.applied('route.delete', `${tenant}/${task}`, result);
  }

  async upsertTenant(tenant: Tenant, expectedEpoch?: number): Promise<ChangeResult> {
    const result = await this.repository.upsertTenant(tenant, this.opts(expectedEpoch));
    return this.applied('tenant.upsert', tenant.name, result);
  }

  async deleteTenant(name: string, expectedEpoch?: number): Promise<ChangeResult> {
    const result = await this.repository.deleteTenant(name, this.opts(expectedEpoch));
    return this.applied('tenant.delete', name, result);
  }

  audit(limit: number): Promise<AuditEntry[]> {
    return this.repository.auditLog(limit);
  }

  /** Replaces the stored table with MESH_CONFIG (the explicit reseed). */
  async reseed(): Promise<ChangeResult> {
    const data = await readMeshConfigFile(this.options.meshConfigFile);
    const result = await this.repository.reseed(data, this.options.actor);
    return this.applied('reseed', this.options.meshConfigFile, result);
  }

  private async applied(
    action: string,
    target: string,
    result: ChangeResult,
  ): Promise<ChangeResult> {
    this.options.logger.info(
      { event: 'admin-edit', actor: this.options.actor, action, target, epoch: result.epoch },
      'routing table edited',
    );
    await this.cache.refresh();
    return result;
  }

  private opts(expectedEpoch: number | undefined): { who: string; expectedEpoch?: number } {
    const who = this.options.actor;
    return expectedEpoch === undefined ? { who } : { who, expectedEpoch };
  }
}
