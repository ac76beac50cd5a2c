import { RouteNotFoundError, UnauthenticatedError } from './routing.errors';
import { ANY, type Route, type RoutingTable, type Tenant } from './routing.types';

/** What a request for (tenant, task) resolves to. */
export interface ResolvedRoute {
  tenant: Tenant;
  route: Route;
}

/**
 * Answers route questions for one immutable table. Lookups only ever consult the caller's
 * own routes and the `*` defaults, so no answer depends on another tenant's routes.
 */
export class RouteResolver {
  private readonly tenants = new Map<string, Tenant>();
  private readonly routes = new Map<string, Route>();
  private readonly tasks = new Set<string>();

  constructor(readonly table: RoutingTable) {
    for (const tenant of table.tenants) this.tenants.set(tenant.name, tenant);
    for (const route of table.routes) {
      this.routes.set(key(route.tenant, route.task), route);
      this.tasks.add(route.task);
    }
  }

  tenant(name: string): Tenant | undefined {
    return this.tenants.get(name);
  }

  /**
   * The tenant's own route for the task, else the `*` default. A task the tenant may not call
   * answers exactly like a task that does not exist (TASK_NOT_FOUND), so task names never leak
   * between tenants.
   */
  resolve(tenantName: string, task: string): ResolvedRoute {
    const tenant = this.tenants.get(tenantName);
    // A tenant removed after authentication has no rights left.
    if (!tenant) throw new UnauthenticatedError();
    if (!mayCall(tenant, task)) throw new RouteNotFoundError(task);
    const route = this.routes.get(key(tenant.name, task)) ?? this.routes.get(key(ANY, task));
    if (!route) throw new RouteNotFoundError(task);
    return { tenant, route };
  }

  /** The effective route of every task the tenant may call, sorted by task. */
  tasksFor(tenantName: string): Route[] {
    const tenant = this.tenants.get(tenantName);
    if (!tenant) return [];
    const out: Route[] = [];
    for (const task of [...this.tasks].sort()) {
      if (!mayCall(tenant, task)) continue;
      const route = this.routes.get(key(tenant.name, task)) ?? this.routes.get(key(ANY, task));
      if (route) out.push(route);
    }
    return out;
  }
}

function mayCall(tenant: Tenant, task: string): boolean {
  return tenant.allowedTasks.includes(ANY) || tenant.allowedTasks.includes(task);
}

function key(tenant: string, task: string): string {
  return `${tenant}\u0000${task}`;
}
