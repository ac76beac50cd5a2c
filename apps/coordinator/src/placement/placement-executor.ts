import type { Span } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { CarriedOut, PlannedChange } from './placement-policy.types';
import type { PlacementBackends } from './placement-ports';
import { endChangeSpan, startChangeSpan } from './placement.trace';

/** model → READY versions, per backend address. */
export type Residency = Map<string, Map<string, Set<number>>>;

/**
 * Carries out a plan through Triton's repository API, per backend and model: first every
 * unload (a load whose config names the versions that stay, or RepositoryModelUnload when none
 * do), then every load (a config naming the versions resident after it), so evicted versions
 * are gone before the load that needed their room. A backend whose unload failed gets no load
 * this pass: its budget could not be kept. An unbudgeted backend gets one call per model
 * naming the versions it ends with, as before budgets: versions that stay keep serving
 * throughout. Backends are driven in parallel.
 */
export class PlacementExecutor {
  constructor(
    private readonly backends: Pick<PlacementBackends, 'serve' | 'unload'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Carries out `changes`; `residency` is updated to what the backends hold afterwards.
   * `budgeted` names the backends with a budget. With `parent` (a traced pass), each change is
   * a child span covering the repository call that carried it out.
   */
  async execute(
    changes: readonly PlannedChange[],
    residency: Residency,
    budgeted: ReadonlySet<string>,
    parent?: Span,
  ): Promise<CarriedOut[]> {
    const out: CarriedOut[] = changes.map((c) => ({ ...c }));
    const addresses = [...new Set(out.map((c) => c.backend))];
    await Promise.all(
      addresses.map((a) => {
        const mine = out.filter((c) => c.backend === a);
        const models = residency.get(a) ?? new Map<string, Set<number>>();
        residency.set(a, models);
        return budgeted.has(a)
          ? this.inTwoSteps(a, mine, models, parent)
          : this.inOneStep(a, mine, models, parent);
      }),
    );
    return out;
  }

  private async inOneStep(
    address: string,
    mine: CarriedOut[],
    models: Map<string, Set<number>>,
    parent: Span | undefined,
  ) {
    for (const [model, group] of byModel(mine)) {
      const now = new Set(models.get(model) ?? []);
      for (const c of group) {
        if (c.action === 'load') now.add(c.version);
        else now.delete(c.version);
      }
      const error = await this.apply(address, model, models.get(model), now, group, parent);
      if (!error) models.set(model, now);
    }
  }

  private async inTwoSteps(
    address: string,
    mine: CarriedOut[],
    models: Map<string, Set<number>>,
    parent: Span | undefined,
  ) {
    let unloadFailed = false;
    for (const [model, group] of byModel(mine.filter((c) => c.action === 'unload'))) {
      const now = new Set(models.get(model) ?? []);
      for (const c of group) now.delete(c.version);
      const error = await this.apply(address, model, models.get(model), now, group, parent);
      if (error) unloadFailed = true;
      else models.set(model, now);
    }
    for (const [model, group] of byModel(mine.filter((c) => c.action === 'load'))) {
      if (unloadFailed) {
        for (const c of group) {
          c.error = 'not loaded: an unload on this backend failed first';
          if (parent) endChangeSpan(startChangeSpan(parent, c), c);
        }
        continue;
      }
      const now = new Set(models.get(model) ?? []);
      for (const c of group) now.add(c.version);
      const error = await this.apply(address, model, models.get(model), now, group, parent);
      if (!error) models.set(model, now);
    }
  }

  /**
   * One repository call moving `model` on a backend from `before` to `after`, carrying out
   * `group`: its changes get the call's error when it fails.
   */
  private async apply(
    address: string,
    model: string,
    before: Set<number> | undefined,
    after: Set<number>,
    group: CarriedOut[],
    parent: Span | undefined,
  ): Promise<string | undefined> {
    const spans = parent ? group.map((c) => startChangeSpan(parent, c)) : undefined;
    const error = await this.call(address, model, before, after);
    if (error) for (const c of group) c.error = error;
    spans?.forEach((span, i) => endChangeSpan(span, group[i]!));
    return error;
  }

  private async call(
    address: string,
    model: string,
    before: Set<number> | undefined,
    after: Set<number>,
  ): Promise<string | undefined> {
    const serving = [...after].sort((a, b) => a - b);
    // The event name the reconciler logged before: operators' queries keep working.
    this.logger.info(
      {
        event: 'reconcile',
        model,
        backend: address,
        serving: [...(before ?? [])],
        desired: serving,
      },
      serving.length > 0
        ? 'loading the versions placed on the backend'
        : 'unloading the model from the backend',
    );
    try {
      if (serving.length === 0) await this.backends.unload(model, address);
      else await this.backends.serve(model, serving, [address]);
      return undefined;
    } catch (err: unknown) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}

function byModel(changes: CarriedOut[]): Map<string, CarriedOut[]> {
  const out = new Map<string, CarriedOut[]>();
  for (const c of changes) out.set(c.model, [...(out.get(c.model) ?? []), c]);
  return out;
}
