import { performance } from 'node:perf_hooks';
import type { RolloutPlan, TransitionMetrics } from '@mesh/rollout-contract';
import type { VersionWeight } from '@mesh/routing';
import {
  endSpan,
  SpanKind,
  startChildSpan,
  startRemoteChildSpan,
  type Span,
} from '@mesh/telemetry';
import type { GateResult } from './rollout-gate';
import type { RolloutRecord } from './rollout.types';

export type SpanAttributes = Record<string, string | number | boolean>;

/** A read (readiness, gate) that already ran; exported only if its step gets a trace. */
interface Noted {
  name: string;
  start: number;
  end: number;
  attributes: SpanAttributes;
  outcome: string;
  message?: string;
}

/**
 * The trace of one rollout step: one `advance` of one record. The machine ticks every second
 * and most ticks only look (a hold, a window, backends still loading), so a step gets a trace
 * only when it moved the rollout (a timeline entry) or wrote something (a load, warm-up, route
 * or shadow write). Writes are live spans (their context goes out to the backends); reads are
 * noted with their timings and recorded under the root when the step turns out to be traced.
 * Only created behind `tracingEnabled()`.
 */
export class RolloutStepTrace {
  private readonly begin = performance.now();
  private readonly rollingBack: boolean;
  private root: Span | undefined;
  private rollback: Span | undefined;
  private readonly noted: Noted[] = [];

  constructor(private readonly before: RolloutRecord) {
    this.rollingBack = before.state === 'rolling_back' || before.command?.kind === 'abort';
  }

  /**
   * A write under the step (under `rollout.rollback` while previous weights are restored):
   * starting one makes the step worth a trace. The span ends with the write's outcome, or
   * `error` and its message when it throws.
   */
  async write<T>(
    name: string,
    attributes: SpanAttributes,
    run: (span: Span) => Promise<T>,
    after?: (result: T) => { attributes?: SpanAttributes; outcome?: string },
  ): Promise<T> {
    const span = startChildSpan(name, this.writeParent(), { attributes });
    try {
      const result = await run(span);
      const seen = after?.(result);
      if (seen?.attributes) span.setAttributes(seen.attributes);
      endSpan(span, seen?.outcome ?? 'ok');
      return result;
    } catch (err: unknown) {
      endSpan(span, 'error', messageOf(err));
      throw err;
    }
  }

  /** A read that already ran, from `start` to now (performance.now() times). */
  note(name: string, start: number, attributes: SpanAttributes, outcome = 'ok', message?: string) {
    this.noted.push({
      name,
      start,
      end: performance.now(),
      attributes,
      outcome,
      ...(message ? { message } : {}),
    });
  }

  /** A gate evaluation: the numbers it compared, the plan's limits and the verdict. */
  gate(plan: RolloutPlan, result: GateResult, startedAt: number, windowMs: number): void {
    const failed = result.verdict === 'fail';
    this.note(
      'rollout.gate',
      startedAt,
      gateAttributes(plan, result, windowMs),
      failed ? 'gate_failed' : 'ok',
      failed ? result.reason : undefined,
    );
  }

  /** Ends the step's trace (if it has one) with where the rollout stands after it. */
  finish(after: RolloutRecord): void {
    const moved = after.timeline.slice(this.before.timeline.length);
    if (moved.length === 0 && this.root === undefined) return; // only looked: no trace
    const root = this.rootSpan();
    const last = moved.at(-1);
    root.setAttributes({
      ...stepAttributes(this.before, after),
      'mesh.rollout.outcome': last?.to ?? 'waiting',
      ...(last ? { 'mesh.rollout.reason': last.reason } : {}),
      ...(last?.metrics ? metricAttributes(last.metrics) : {}),
    });
    this.end(after.state === 'failed' ? 'failed' : 'ok', last?.reason);
  }

  /** The step threw: traced when it had written something (a failed read is retried next tick). */
  fail(err: unknown): void {
    if (this.root === undefined) return;
    this.root.setAttributes({
      ...stepAttributes(this.before, this.before),
      'mesh.rollout.outcome': 'error',
    });
    this.end('error', messageOf(err));
  }

  private end(outcome: string, message?: string): void {
    const root = this.rootSpan();
    for (const n of this.noted) {
      const span = startChildSpan(n.name, root, { startTime: n.start, attributes: n.attributes });
      endSpan(span, n.outcome, n.message, n.end);
    }
    if (this.rollback) endSpan(this.rollback, outcome === 'error' ? 'error' : 'ok', message);
    endSpan(root, outcome, message);
  }

  private writeParent(): Span {
    const root = this.rootSpan();
    if (!this.rollingBack) return root;
    this.rollback ??= startChildSpan('rollout.rollback', root, {
      attributes: { 'mesh.rollout.restore': weightsText(this.before.fromVersions) },
    });
    return this.rollback;
  }

  /** The root starts when the step did (kind internal: nobody called the coordinator). */
  private rootSpan(): Span {
    this.root ??= startRemoteChildSpan('rollout.step', undefined, {
      kind: SpanKind.INTERNAL,
      startTime: this.begin,
    });
    return this.root;
  }
}

/** What identifies the step: the rollout, its route and model, versions, step and weight. */
function stepAttributes(before: RolloutRecord, after: RolloutRecord): SpanAttributes {
  const { plan } = after;
  return {
    'mesh.rollout.id': after.id,
    'mesh.tenant': plan.tenant,
    'mesh.task': plan.task,
    'mesh.model': plan.model,
    'mesh.version.from': after.fromVersions.map((v) => v.version).join(','),
    'mesh.version.to': plan.toVersion,
    'mesh.rollout.state.from': before.state,
    'mesh.rollout.state.to': after.state,
    'mesh.rollout.step': after.step,
    'mesh.rollout.weight': weightOf(after.weights, plan.toVersion),
    'mesh.rollout.epoch': after.appliedEpoch,
    ...(before.command ? { 'mesh.rollout.command': before.command.kind } : {}),
  };
}

function gateAttributes(plan: RolloutPlan, result: GateResult, windowMs: number) {
  const m = result.metrics;
  const g = plan.gates ?? {};
  return defined({
    'mesh.gate.verdict': result.verdict,
    'mesh.gate.reason': result.reason,
    'mesh.gate.window_s': Math.round(windowMs / 100) / 10,
    'mesh.gate.requests': m.requests,
    'mesh.gate.errors': m.errors,
    'mesh.gate.error_rate': m.errorRate,
    'mesh.gate.p99_ms': m.p99Ms,
    'mesh.gate.baseline.requests': m.baselineRequests,
    'mesh.gate.baseline.error_rate': m.baselineErrorRate,
    'mesh.gate.baseline.p99_ms': m.baselineP99Ms,
    'mesh.gate.max_error_rate': g.maxErrorRate,
    'mesh.gate.max_p99_ms': g.maxP99Ms,
    'mesh.gate.max_p99_ratio': g.maxP99Ratio,
    'mesh.gate.min_requests': g.minRequests,
  });
}

/** The transition's metrics (as the timeline rounded them), `errorRate` → `...error_rate`. */
function metricAttributes(metrics: TransitionMetrics): SpanAttributes {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metrics)) {
    out[`mesh.rollout.metric.${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`] = v;
  }
  return defined(out);
}

/** Attributes cannot be null: a value not measured is left out. */
function defined(values: Record<string, unknown>): SpanAttributes {
  const out: SpanAttributes = {};
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}

export function weightOf(weights: readonly VersionWeight[], version: number): number {
  return weights.find((w) => w.version === version)?.weight ?? 0;
}

export function weightsText(weights: readonly VersionWeight[]): string {
  return weights.map((w) => `${w.version}:${w.weight}`).join(',');
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
