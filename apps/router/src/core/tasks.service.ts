import type { RoutingTableCache, Tenant } from '@mesh/routing';
import type { VersionCatalog } from '@mesh/inference';
import type { TaskInfo } from './predict.commands';

/** What a tenant may call: its own routes and the `*` defaults, never another tenant's. */
export class TasksService {
  constructor(
    private readonly routes: RoutingTableCache,
    private readonly catalog: VersionCatalog,
  ) {}

  list(tenant: Tenant): TaskInfo[] {
    return this.routes.tasksFor(tenant.name).map((route) => ({
      task: route.task,
      model: route.model,
      kind: this.catalog.kindOf(route.model) ?? 'unknown',
      versions: route.versions.filter((v) => v.weight > 0).map((v) => v.version),
    }));
  }
}
