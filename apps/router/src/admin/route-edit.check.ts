import type { KServeBackends, VersionCatalog } from '@mesh/inference';
import type { Route, RouteEditValidator, RouteProblem } from '@mesh/routing';
import type { RouteSelector } from '../catalog/route-selector';

/**
 * What the admin API checks before writing a route: the repository-level checks shared with
 * the coordinator (RouteEditValidator), then this router's own catalog — re-read first, so a
 * version directory added a moment ago counts — for versions whose preprocessing cannot load
 * (e.g. a pipeline this build does not have).
 */
export class RouteEditChecker {
  constructor(
    private readonly validator: RouteEditValidator,
    private readonly catalog: VersionCatalog,
    private readonly backends: KServeBackends,
    private readonly selector: RouteSelector,
  ) {}

  async problems(route: Route): Promise<RouteProblem[]> {
    const problems = await this.validator.check(route);
    if (problems.some((p) => p.path === 'model')) return problems;
    await this.catalog.refresh();
    const flagged = new Set(problems.map((p) => p.version));
    versionsOf(route).forEach(({ version, path }) => {
      if (flagged.has(version) || this.catalog.servable(route.model, version)) return;
      problems.push({
        code: 'MANIFEST_INVALID',
        path,
        model: route.model,
        version,
        message: this.catalog.problem(route.model, version),
      });
    });
    return problems;
  }

  /** Per version of the route: why this router cannot route it now (after a discovery round). */
  async unroutable(route: Route): Promise<Record<string, string>> {
    await this.backends.discover();
    const out: Record<string, string> = {};
    for (const { version } of versionsOf(route)) {
      const reason = this.selector.unroutableReason(route.model, version);
      if (reason !== undefined) out[String(version)] = reason;
    }
    return out;
  }
}

function versionsOf(route: Route): { version: number; path: string }[] {
  const out = route.versions.map((v, i) => ({
    version: v.version,
    path: `versions[${i}].version`,
  }));
  if (route.shadow) out.push({ version: route.shadow.version, path: 'shadow.version' });
  return out;
}
