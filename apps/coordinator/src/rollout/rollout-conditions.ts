import { performance } from 'node:perf_hooks';
import type { TransitionMetrics } from '@mesh/rollout-contract';
import { RolloutGate, type GateResult } from './rollout-gate';
import { RolloutWindow } from './rollout-window';
import { baselineVersion } from './rollout-weights';
import type { RolloutPorts } from './rollout-ports';
import type { RolloutMachineOptions, RolloutRecord } from './rollout.types';

export interface StartCondition {
  open: boolean;
  /** The record changed (its `lowLoadSince`) even though nothing may start. */
  changed: boolean;
  reason: string;
  metrics: TransitionMetrics;
}

/** What a rollout waits for: the window and low load before a step, the gates during one. */
export class RolloutConditions {
  constructor(
    private readonly ports: RolloutPorts,
    private readonly options: RolloutMachineOptions,
  ) {}

  /** Window and low-load conditions; updates `lowLoadSince` (then `changed` is true). */
  async stepsMayStart(r: RolloutRecord, now: number): Promise<StartCondition> {
    const { window, lowLoad } = r.plan;
    const metrics: TransitionMetrics = {};
    if (window && !new RolloutWindow(window).isOpen(now)) {
      return { open: false, changed: false, reason: '', metrics };
    }
    let changed = false;
    if (lowLoad) {
      const load = await this.ports.signals.read({
        task: r.plan.task,
        fromMs: now - this.options.loadSampleMs,
        toMs: now,
      });
      metrics.requestsPerSecond = round(load.ratePerSecond);
      if (load.ratePerSecond >= lowLoad.maxRequestsPerSecond) {
        changed = r.lowLoadSince !== undefined;
        delete r.lowLoadSince;
        return { open: false, changed, reason: '', metrics };
      }
      if (r.lowLoadSince === undefined) {
        r.lowLoadSince = now;
        changed = true;
      }
      metrics.lowForSeconds = round((now - r.lowLoadSince) / 1000);
      if (now - r.lowLoadSince < lowLoad.forSeconds * 1000) {
        return { open: false, changed, reason: '', metrics };
      }
    }
    const parts = [
      window ? 'inside the window' : 'no window',
      lowLoad ? `load below ${lowLoad.maxRequestsPerSecond} rps for ${lowLoad.forSeconds} s` : '',
    ];
    return { open: true, changed, reason: parts.filter(Boolean).join(', '), metrics };
  }

  /** The plan's gates over the current step (or bake) so far, against the old version. */
  async evaluate(r: RolloutRecord, now: number, holdOver: boolean): Promise<GateResult> {
    const startedAt = performance.now();
    const { task, model, toVersion } = r.plan;
    const fromMs = r.enteredAt;
    const fresh = await this.ports.signals.read({
      task,
      model,
      version: toVersion,
      fromMs,
      toMs: now,
    });
    const base = baselineVersion(r.fromVersions, toVersion);
    const baseline =
      base === undefined
        ? undefined
        : await this.ports.signals.read({ task, model, version: base, fromMs, toMs: now });
    const result = new RolloutGate(r.plan.gates).evaluate(fresh, baseline, holdOver);
    this.options.onGate?.(r.plan, result.verdict, result, startedAt);
    return result;
  }
}

export function round(n: number): number {
  return Math.round(n * 100) / 100;
}
