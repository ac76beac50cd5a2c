import { declaredMemoryMb, estimateMemoryMb } from '@mesh/model-repository';
import type { HostMetrics } from '../core/host.metrics';
import { MemoryBudgetExceededError } from '../core/model-host.errors';
import type { ModelVersionRuntime } from '../core/model-version.runtime';
import { configuredInstances } from './instance-split';
import {
  budgetRefusalMessage,
  checkMemoryBudget,
  type IncomingVersion,
} from './memory-budget.check';
import type { ModelFiles } from './model-files.repository';

/** What one load asks of the budget. */
export interface LoadFootprint {
  files: ModelFiles;
  /** Versions the load builds, with their model file paths. */
  toBuild: { version: number; path: string }[];
  /** Serving versions of the model that the load retires or rebuilds (freed by it). */
  freed: readonly ModelVersionRuntime[];
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
   */
  async admit(load: LoadFootprint): Promise<() => void> {
    if (this.budgetMb === undefined || load.toBuild.length === 0) return () => undefined;
    const incoming = await Promise.all(load.toBuild.map((b) => this.footprintOf(load.files, b)));
    // From here to the reservation nothing awaits: the check and the reservation are one step.
    const refusal = checkMemoryBudget({
      budgetMb: this.budgetMb,
      usedMb: this.usedMb() + this.reservedMb,
      freedMb: sum(load.freed.map((rt) => rt.spec.memoryMb ?? 0)),
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
    b: { version: number; path: string },
  ): Promise<IncomingVersion> {
    const base = { model: files.name, version: String(b.version) };
    const declared = declaredMemoryMb(files.config, b.version);
    if (declared !== undefined) return { ...base, mb: declared, declared: true };
    // A missing file fails the build itself with its own reason; it costs nothing here.
    const bytes = await this.fileSize(b.path).catch(() => 0);
    const instances = configuredInstances(files.config) ?? this.cores;
    return { ...base, mb: estimateMemoryMb(bytes, instances), declared: false };
  }
}

const labels = (rt: ModelVersionRuntime) => ({ model: rt.spec.model, version: rt.spec.version });
