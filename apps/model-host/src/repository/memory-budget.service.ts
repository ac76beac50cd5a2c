import { declaredMemoryMb, estimateMemoryMb } from '@mesh/model-repository';
import type { HostMetrics } from '../core/host.metrics';
import { MemoryBudgetExceededError } from '../core/model-host.errors';
import type { ModelVersionRuntime } from '../core/model-version-runtime';
import { configuredInstances } from './instance-split';
import {
  budgetRefusalMessage,
  checkMemoryBudget,
  type IncomingVersion,
} from './memory-budget.check';
import type { ModelFiles } from './model-files.repository';

/** What one load of a model does: the versions it builds, and every version it selects. */
export interface LoadPlan {
  toBuild: readonly number[];
  /** Selected versions (by name); a serving version not among them retires. */
  keys: ReadonlyMap<string, string>;
}

const sum = (ns: readonly number[]): number => ns.reduce((a, b) => a + b, 0);

/**
 * The host's side of "many models on a memory budget": admits a load only if the serving
 * versions' footprints, minus what the load frees, plus what it builds, stay within
 * MODEL_HOST_MEMORY_BUDGET_MB (defence in depth behind the coordinator's placer), and keeps the
 * memory gauges. Builds in progress hold a reservation, so two models loading at once cannot
 * both take the last room.
 */
export class MemoryBudgetService {
  private reservedMb = 0;

  constructor(
    readonly budgetMb: number | undefined,
    private readonly cores: number,
    private readonly metrics: HostMetrics,
    private readonly serving: () => ModelVersionRuntime[],
    private readonly fileSize: (path: string) => Promise<number>,
  ) {
    if (budgetMb !== undefined) metrics.memoryBudget(budgetMb);
  }

  /** Sum of the serving versions' footprints. */
  usedMb(): number {
    return sum(this.serving().map((rt) => rt.spec.memoryMb ?? 0));
  }

  /**
   * Refuses the load (RESOURCE_EXHAUSTED) when it would pass the budget; otherwise reserves its
   * footprints until the returned release is called (after the build swapped in or failed).
   * The model's serving versions that the load rebuilds or retires count as freed.
   */
  async admit(
    files: ModelFiles,
    serving: ReadonlyMap<string, ModelVersionRuntime>,
    plan: LoadPlan,
    modelFile: (version: number) => string,
  ): Promise<() => void> {
    if (this.budgetMb === undefined || plan.toBuild.length === 0) return () => undefined;
    const incoming = await Promise.all(
      plan.toBuild.map((v) => this.footprintOf(files, v, modelFile(v))),
    );
    const freed = [...serving]
      .filter(([v]) => plan.toBuild.includes(Number(v)) || !plan.keys.has(v))
      .map(([, rt]) => rt.spec.memoryMb ?? 0);
    // From here to the reservation nothing awaits: the check and the reservation are one step.
    const refusal = checkMemoryBudget({
      budgetMb: this.budgetMb,
      usedMb: this.usedMb() + this.reservedMb,
      freedMb: sum(freed),
      incoming,
    });
    if (refusal) throw new MemoryBudgetExceededError(budgetRefusalMessage(refusal));
    const reserved = sum(incoming.map((v) => v.mb));
    this.reservedMb += reserved;
    let released = false;
    return () => {
      if (!released) this.reservedMb -= reserved;
      released = true;
    };
  }

  /** Keeps the per-version and used gauges in step with what serves. */
  servingChanged(added: readonly ModelVersionRuntime[], removed: readonly ModelVersionRuntime[]) {
    for (const rt of removed) this.metrics.versionMemory(labels(rt), undefined);
    for (const rt of added) this.metrics.versionMemory(labels(rt), rt.spec.memoryMb);
    this.metrics.memoryUsed(this.usedMb());
  }

  /** Declared memory_mb_v<N>, else the estimate from the file size (unset count: every core). */
  private async footprintOf(
    files: ModelFiles,
    version: number,
    path: string,
  ): Promise<IncomingVersion> {
    const base = { model: files.name, version: String(version) };
    const declared = declaredMemoryMb(files.config, version);
    if (declared !== undefined) return { ...base, mb: declared, declared: true };
    // A missing file fails the build itself with its own reason; it costs nothing here.
    const bytes = await this.fileSize(path).catch(() => 0);
    const instances = configuredInstances(files.config) ?? this.cores;
    return { ...base, mb: estimateMemoryMb(bytes, instances), declared: false };
  }
}

const labels = (rt: ModelVersionRuntime) => ({ model: rt.spec.model, version: rt.spec.version });
