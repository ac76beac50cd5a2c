import type { Span } from '@mesh/telemetry';
import type { BackendFleet, BackendReadiness, DesiredVersions } from '../rollout/rollout-ports';
import type { Placer } from './placer';

/**
 * The backends and desired versions as a rollout sees them once versions are placed under
 * budgets. Without any budget it is the plain fleet (every version on every backend, as
 * before). With budgets, a budgeted backend holds only what the placer put there: a rollout's
 * load is a placement pass (its new version goes where its predecessor is resident), its
 * readiness is checked where the version was placed, and its retirement frees the budget at
 * once. Unbudgeted backends keep the plain behaviour beside them.
 */
export class PlacementAwareFleet implements BackendFleet, DesiredVersions {
  constructor(
    private readonly fleet: {
      readiness(
        model: string,
        version: number,
        addresses?: readonly string[],
      ): Promise<BackendReadiness[]>;
      serve(model: string, versions: number[], addresses?: string[], parent?: Span): Promise<void>;
    },
    private readonly desired: DesiredVersions,
    private readonly placer: Pick<
      Placer,
      'budgetsByBackend' | 'hostsOf' | 'skipReason' | 'reconcile' | 'retire'
    >,
  ) {}

  set(model: string, versions: number[]): Promise<void> {
    return this.desired.set(model, versions);
  }

  all(): Promise<Map<string, number[]>> {
    return this.desired.all();
  }

  async readiness(model: string, version: number): Promise<BackendReadiness[]> {
    const { budgeted, unbudgeted } = await this.split();
    if (budgeted.length === 0) return this.fleet.readiness(model, version);
    const hosts = this.placer.hostsOf(model, version).filter((a) => budgeted.includes(a));
    if (hosts.length === 0 && unbudgeted.length === 0) {
      const problem = this.placer.skipReason(model, version) ?? 'not placed on any backend yet';
      return [{ address: 'placement', ready: false, problem }];
    }
    return this.fleet.readiness(model, version, [...unbudgeted, ...hosts]);
  }

  /**
   * With `addresses` (a rollout's load): unbudgeted backends are loaded as before and a
   * placement pass places the rollout's versions on budgeted ones. Without (a drain): the
   * versions outside `versions` are retired everywhere.
   */
  async serve(
    model: string,
    versions: number[],
    addresses?: string[],
    parent?: Span,
  ): Promise<void> {
    const { budgeted, unbudgeted } = await this.split();
    if (budgeted.length === 0) return this.fleet.serve(model, versions, addresses, parent);
    const plain = unbudgeted.filter((a) => !addresses || addresses.includes(a));
    if (plain.length > 0) await this.fleet.serve(model, versions, plain, parent);
    await this.placer.reconcile();
    if (!addresses) await this.placer.retire(model, versions, budgeted);
  }

  private async split(): Promise<{ budgeted: string[]; unbudgeted: string[] }> {
    const budgets = [...(await this.placer.budgetsByBackend())];
    return {
      budgeted: budgets.filter(([, mb]) => mb !== null).map(([a]) => a),
      unbudgeted: budgets.filter(([, mb]) => mb === null).map(([a]) => a),
    };
  }
}
