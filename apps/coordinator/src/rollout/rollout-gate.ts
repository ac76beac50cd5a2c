import { roundForPeople, type GateSpec, type TransitionMetrics } from '@mesh/rollout-contract';
import type { VersionSignals } from './rollout-ports';

export type GateVerdict = 'pass' | 'fail' | 'wait';

export interface GateResult {
  verdict: GateVerdict;
  reason: string;
  metrics: TransitionMetrics;
}

/**
 * Compares the new version's signals with the plan's limits (or the old version's p99).
 * Failures are reported as soon as enough requests were seen, so a bad version is rolled back
 * within one evaluation interval; a pass needs the whole hold (`holdOver`). Limits are compared
 * with the measured values; reasons show them rounded for people, and the timeline rounds the
 * metrics when it records them.
 */
export class RolloutGate {
  constructor(private readonly spec: GateSpec | undefined) {}

  evaluate(fresh: VersionSignals, baseline: VersionSignals | undefined, holdOver: boolean) {
    const metrics: TransitionMetrics = {
      requests: fresh.requests,
      errors: fresh.errors,
      errorRate: fresh.errorRate,
      p99Ms: fresh.p99Ms,
      baselineRequests: baseline?.requests ?? null,
      baselineErrorRate: baseline?.errorRate ?? null,
      baselineP99Ms: baseline?.p99Ms ?? null,
    };
    const result = (verdict: GateVerdict, reason: string): GateResult => ({
      verdict,
      reason,
      metrics,
    });
    const spec = this.spec ?? {};
    const minRequests = spec.minRequests ?? 0;
    if (fresh.requests > 0 && fresh.requests >= minRequests) {
      const failure = this.failure(spec, fresh, baseline);
      if (failure) return result('fail', failure);
    }
    if (!holdOver) return result('wait', 'holding');
    if (fresh.requests < minRequests) {
      return result('wait', `needs ${minRequests} requests, has ${fresh.requests}`);
    }
    return result('pass', this.spec ? 'gates passed' : 'hold over (no gates)');
  }

  private failure(
    spec: GateSpec,
    fresh: VersionSignals,
    baseline: VersionSignals | undefined,
  ): string | undefined {
    if (spec.maxErrorRate !== undefined && fresh.errorRate > spec.maxErrorRate) {
      return `gate maxErrorRate failed: error rate ${roundForPeople(fresh.errorRate)} > ${spec.maxErrorRate}`;
    }
    if (spec.maxP99Ms !== undefined && fresh.p99Ms !== null && fresh.p99Ms > spec.maxP99Ms) {
      return `gate maxP99Ms failed: p99 ${roundForPeople(fresh.p99Ms)} ms > ${spec.maxP99Ms} ms`;
    }
    const base = baseline?.p99Ms;
    if (spec.maxP99Ratio !== undefined && fresh.p99Ms !== null && base && base > 0) {
      const ratio = fresh.p99Ms / base;
      if (ratio > spec.maxP99Ratio) {
        return `gate maxP99Ratio failed: p99 ${roundForPeople(fresh.p99Ms)} ms is ${roundForPeople(ratio)}× the old version's ${roundForPeople(base)} ms (limit ${spec.maxP99Ratio}×)`;
      }
    }
    return undefined;
  }
}
