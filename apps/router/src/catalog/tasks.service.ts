import type { RoutingTableCache, Tenant } from '@mesh/routing';
import type { VersionCatalog } from '@mesh/inference';
import type { TaskInfo } from '../predict/predict-commands';

/** What a tenant may call: its own routes and the `*` defaults, never another tenant's. */
export class TasksService {
  constructor(
    private readonly routes: RoutingTableCache,
    private readonly catalog: VersionCatalog,
  ) {}

  list(tenant: Tenant): TaskInfo[] {
    return this.routes.tasksFor(tenant.name).map((route) => {
      const weighted = route.versions.filter((v) => v.weight > 0);
      const weightedVersions = weighted.map(({ version, weight }) => {
        const v = this.catalog.servable(route.model, version);
        return {
          version,
          weight,
          maxLength: v?.maxLength ?? 0,
          hardMaxChars: v?.hardMaxChars ?? 0,
          pairs: v?.pairs ?? false,
          labels: [...(v?.labels ?? [])],
        };
      });
      return {
        task: route.task,
        model: route.model,
        kind: this.catalog.kindOf(route.model) ?? 'unknown',
        versions: weighted.map((v) => v.version),
        weightedVersions,
        pairs: weightedVersions.some((v) => v.pairs),
      };
    });
  }
}
