import {
  RouteEditRejectedError,
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
import type { RouteSelector } from '../catalog/route-selector';
import type { RouteEditChecker } from './route-edit.check';

export interface RouteStatus extends Route {
  /** Per version: undefined when routable, else why not (the same reason a 503 would give). */
  unroutable: Record<string, string>;
}

/** Who the audit log names for edits made through the admin API (`ADMIN_ACTOR`). */
export interface AdminServiceOptions {
  meshConfigFile: string;
  actor: string;
  logger: Logger;
  /** Refuses routes to unknown or broken model versions (absent: no check). */
  checker?: RouteEditChecker;
}

/** A route edit's result, with the versions this router cannot route yet and why. */
export interface RouteEditResult extends ChangeResult {
  unroutable: Record<string, string>;
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

  /**
   * Writes a route after checking its model and versions against the repository: problems
   * refuse it (422, RouteEditRejectedError) unless `force` (pre-staging a version before it is
   * on disk or loaded); the answer lists what this router cannot route yet and why. A version
   * too large for every backend's budget (422 MODEL_TOO_LARGE) is refused even with `force`:
   * waiting cannot make it fit, so its weight would only turn into failed cold starts.
   */
  async upsertRoute(route: Route, expectedEpoch?: number, force = false): Promise<RouteEditResult> {
    const checker = this.options.checker;
    const problems = checker ? await checker.problems(route) : [];
    const tooLarge = problems.some((p) => p.code === 'MODEL_TOO_LARGE');
    if (problems.length > 0 && (!force || tooLarge)) throw new RouteEditRejectedError(problems);
    const result = await this.repository.upsertRoute(route, this.opts(expectedEpoch));
    const applied = await this.applied('route.upsert', `${route.tenant}/${route.task}`, result);
    const unroutable = checker ? await checker.unroutable(route) : {};
    for (const p of problems)
      if (p.version !== undefined) unroutable[String(p.version)] ??= p.message;
    if (problems.length > 0)
      this.options.logger.warn(
        { event: 'admin-edit-forced', target: `${route.tenant}/${route.task}`, problems },
        'route written with problems (force)',
      );
    return { ...applied, unroutable };
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
