import type { VersionWeight } from '@mesh/routing';
import { RolloutGate, type GateVerdict } from './rollout-gate';
import { RolloutWindow } from './rollout-window';
import { baselineVersion, sameWeights, weightsAt } from './rollout-weights';
import type { RolloutPorts } from './rollout.ports';
import {
  isTerminal,
  type RolloutRecord,
  type RolloutState,
  type TransitionMetrics,
} from './rollout.types';

export interface RolloutMachineOptions {
  /** How far back the low-load detector looks at each evaluation (ms). */
  loadSampleMs: number;
  /** A version that is not READY everywhere by then fails the rollout (ms). */
  loadTimeoutMs: number;
  /** Told every gate evaluation's verdict (metrics). */
  onGate?: (plan: RolloutRecord['plan'], verdict: GateVerdict) => void;
}

/**
 * The rollout state machine. `advance` looks at one persisted record, does at most one
 * transition's worth of I/O through the ports and returns the next record (the same object
 * when nothing changed). Every side effect is idempotent (weights are compared before each
 * compare-and-swap), so re-running a step after a crash neither repeats nor skips it.
 */
export class RolloutMachine {
  constructor(
    private readonly ports: RolloutPorts,
    private readonly options: RolloutMachineOptions,
  ) {}

  async advance(record: RolloutRecord): Promise<RolloutRecord> {
    if (isTerminal(record.state)) return record;
    const r = structuredClone(record);
    const now = this.ports.clock.now();
    if (r.command) {
      const { kind } = r.command;
      delete r.command;
      await this.command(r, kind, now);
      return r;
    }
    const changed = await this.step(r, now);
    return changed ? r : record;
  }

  private async step(r: RolloutRecord, now: number): Promise<boolean> {
    switch (r.state) {
      case 'pending':
        return this.move(r, 'loading', now, `loading version ${r.plan.toVersion} on every backend`);
      case 'loading':
        return this.load(r, now);
      case 'waiting_for_window':
        return this.waitForWindow(r, now);
      case 'warming':
        return this.warm(r, now);
      case 'shadow':
        return this.shadow(r, now);
      case 'canary':
        return this.canary(r, now);
      case 'baking':
        return this.bake(r, now);
      case 'promoted':
        return this.move(r, 'draining', now, 'waiting for in-flight requests on the old versions');
      case 'draining':
        return this.drain(r, now);
      case 'rolling_back':
        await this.clearShadow(r);
        await this.apply(r, r.fromVersions);
        return this.move(r, 'rolled_back', now, 'previous weights restored', {
          epoch: r.appliedEpoch,
        });
      case 'paused':
        return false;
      case 'completed':
      case 'rolled_back':
      case 'aborted':
      case 'failed':
        return false;
    }
  }

  private async load(r: RolloutRecord, now: number): Promise<boolean> {
    const { model, toVersion } = r.plan;
    const expected = await this.ports.catalog.expectedSha(model, toVersion);
    const backends = await this.ports.backends.readiness(model, toVersion);
    const wrong = backends.find((b) => b.ready && expected && b.sha && b.sha !== expected);
    if (wrong) {
      return this.move(
        r,
        'failed',
        now,
        `backend ${wrong.address} serves version ${toVersion} with model_sha256 ${wrong.sha}, the manifest pins ${expected}`,
      );
    }
    const missing = backends.filter((b) => !b.ready || (expected !== undefined && !b.sha));
    if (missing.length > 0) {
      if (now - r.enteredAt > this.options.loadTimeoutMs) {
        const why = missing.map((b) => `${b.address}: ${b.problem ?? 'not ready'}`).join('; ');
        return this.move(r, 'failed', now, `version ${toVersion} not ready in time (${why})`);
      }
      const serving = await this.servingSet(r);
      await this.ports.desired.set(model, serving);
      await this.ports.backends.serve(
        model,
        serving,
        missing.map((b) => b.address),
      );
      return false;
    }
    const snapshot = await this.ports.routes.get(r.plan.tenant, r.plan.task);
    const epoch = snapshot?.epoch ?? 0;
    const verdict = await this.ports.routers.canAllRoute(model, toVersion, epoch);
    if (!verdict.ok) return false;
    return this.move(
      r,
      'waiting_for_window',
      now,
      `version ${toVersion} ready on every backend and routable on every router`,
      {
        backends: backends.length,
        routers: verdict.routers,
        epoch,
      },
    );
  }

  private async waitForWindow(r: RolloutRecord, now: number): Promise<boolean> {
    const gate = await this.stepsMayStart(r, now);
    if (gate.changed && !gate.open) return true;
    if (!gate.open) return false;
    if (r.plan.warmup && r.plan.warmup.requests > 0) {
      return this.move(r, 'warming', now, gate.reason, gate.metrics);
    }
    return this.afterWarmup(r, now, gate.reason, gate.metrics);
  }

  /** Shadow phase if the plan has one, else the first step. */
  private afterWarmup(r: RolloutRecord, now: number, reason: string, metrics: TransitionMetrics) {
    if (r.plan.shadow) return this.startShadow(r, now, reason, metrics);
    return this.startStep(r, 1, now, reason, metrics);
  }

  private async startShadow(
    r: RolloutRecord,
    now: number,
    reason: string,
    metrics: TransitionMetrics,
  ): Promise<boolean> {
    const percent = await this.ensureShadow(r);
    return this.move(
      r,
      'shadow',
      now,
      `${reason}; mirroring ${percent}% of requests to version ${r.plan.toVersion}`,
      { ...metrics, epoch: r.appliedEpoch },
    );
  }

  /**
   * Mirrored traffic for the plan's hold, then a verdict on the label agreement measured by the
   * routers: at least `minAgreement` moves on to step 1, less fails the rollout (onFailure).
   * Agreement is noisy while few items are compared, so only the full hold decides.
   */
  private async shadow(r: RolloutRecord, now: number): Promise<boolean> {
    const spec = r.plan.shadow;
    if (!spec) return this.startStep(r, 1, now, 'no shadow in the plan');
    await this.ensureShadow(r); // e.g. resumed after a pause, or a crash before the save
    if (now - r.enteredAt < spec.holdSeconds * 1000) return false;
    const { task, model, toVersion } = r.plan;
    const measured = await this.ports.signals.readShadow({
      task,
      model,
      version: toVersion,
      fromMs: r.enteredAt,
      toMs: now,
    });
    const minCompared = Math.max(1, r.plan.gates?.minRequests ?? 1);
    if (measured.compared < minCompared) return false;
    const agreement = round(measured.agreement ?? 0);
    const metrics: TransitionMetrics = {
      compared: measured.compared,
      agreed: measured.agreed,
      agreement,
      minAgreement: spec.minAgreement,
      sampleRate: spec.sampleRate,
    };
    await this.clearShadow(r);
    const numbers = `${agreement} over ${measured.compared} mirrored items`;
    if (agreement >= spec.minAgreement) {
      return this.startStep(
        r,
        1,
        now,
        `shadow agreement ${numbers} ≥ ${spec.minAgreement}`,
        metrics,
      );
    }
    return this.fail(r, now, `shadow agreement ${numbers} < ${spec.minAgreement}`, metrics);
  }

  /** Puts the shadow on the route unless it is there already; returns the percent mirrored. */
  private async ensureShadow(r: RolloutRecord): Promise<number> {
    const { tenant, task, toVersion, shadow } = r.plan;
    const percent = Math.round((shadow?.sampleRate ?? 0) * 10_000) / 100;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    const current = snapshot.route.shadow;
    if (current?.version === toVersion && (current.percent ?? 100) === percent) return percent;
    r.appliedEpoch = await this.ports.routes.setShadow(
      tenant,
      task,
      { version: toVersion, percent },
      { expectedEpoch: snapshot.epoch, who: `rollout:${r.id}` },
    );
    return percent;
  }

  /** Takes this rollout's shadow off the route (no write when it is not there). */
  private async clearShadow(r: RolloutRecord): Promise<void> {
    const { tenant, task, toVersion } = r.plan;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (snapshot?.route.shadow?.version !== toVersion) return;
    r.appliedEpoch = await this.ports.routes.setShadow(tenant, task, undefined, {
      expectedEpoch: snapshot.epoch,
      who: `rollout:${r.id}`,
    });
  }

  private async warm(r: RolloutRecord, now: number): Promise<boolean> {
    const { model, toVersion } = r.plan;
    const result = await this.ports.warmer.warm(model, toVersion, r.plan.warmup?.requests ?? 0);
    if (result.failed > 0) {
      return this.fail(
        r,
        now,
        `warm-up failed: ${result.failed} of ${result.ok + result.failed} requests`,
        { ...result },
      );
    }
    return this.afterWarmup(r, now, `warm-up done (${result.ok} requests)`, { ...result });
  }

  private async canary(r: RolloutRecord, now: number): Promise<boolean> {
    const step = r.plan.steps[r.step - 1];
    if (!step) return this.move(r, 'baking', now, 'no further steps');
    const target = weightsAt(r.fromVersions, r.plan.toVersion, step.weight);
    if (!sameWeights(r.weights, target)) {
      // The step was entered but its weights are not committed yet (e.g. after a restart).
      await this.apply(r, target);
      r.enteredAt = now;
      return true;
    }
    const holdOver = now - r.enteredAt >= step.holdSeconds * 1000;
    const gate = await this.evaluate(r, now, holdOver);
    if (gate.verdict === 'fail') return this.fail(r, now, gate.reason, gate.metrics);
    if (gate.verdict === 'wait') return false;
    if (r.step >= r.plan.steps.length) {
      return this.move(r, 'baking', now, `step ${r.step} held: ${gate.reason}`, gate.metrics);
    }
    const window = await this.stepsMayStart(r, now);
    if (!window.open) return window.changed;
    return this.startStep(r, r.step + 1, now, `step ${r.step} held: ${gate.reason}`, gate.metrics);
  }

  private async bake(r: RolloutRecord, now: number): Promise<boolean> {
    const holdOver = now - r.enteredAt >= r.plan.bakeSeconds * 1000;
    const gate = await this.evaluate(r, now, holdOver);
    if (gate.verdict === 'fail') return this.fail(r, now, gate.reason, gate.metrics);
    if (gate.verdict === 'wait') return false;
    return this.move(
      r,
      'promoted',
      now,
      `baked ${r.plan.bakeSeconds} s: ${gate.reason}`,
      gate.metrics,
    );
  }

  private async drain(r: RolloutRecord, now: number): Promise<boolean> {
    const { model, toVersion } = r.plan;
    const old = r.fromVersions.map((v) => v.version).filter((v) => v !== toVersion);
    const status = await this.ports.routers.drainStatus(model, old, r.appliedEpoch);
    if (status.behind.length > 0 || status.inFlight > 0) return false;
    const final = [{ version: toVersion, weight: 100 }];
    if (!sameWeights(r.weights, final)) {
      await this.apply(r, final);
      return true;
    }
    const serving = await this.servingSet(r, false);
    const retired = old.filter((v) => !serving.includes(v));
    const pins = retired.length > 0 ? await this.ports.pins?.pinned(model, retired) : undefined;
    if (pins && pins.count > 0) {
      // Bulk jobs keep running on their pinned version after the route moved; retiring it now
      // would fail their remaining chunks. One timeline entry per change, not one per tick.
      const reason = `waiting for ${pins.count} bulk job(s) pinned to version ${retired.join(', ')}: ${pins.jobIds.join(', ')}`;
      if (r.timeline.at(-1)?.reason === reason) return false;
      return this.move(r, 'draining', now, reason, { pinnedJobs: pins.count });
    }
    await this.ports.desired.set(model, serving);
    await this.ports.backends.serve(model, serving);
    return this.move(
      r,
      'completed',
      now,
      retired.length > 0
        ? `retired version ${retired.join(', ')} on every backend`
        : 'old versions still used by other routes; nothing retired',
      {
        inFlight: status.inFlight,
        routers: status.routers,
        retired: retired.join(',') || null,
        serving: serving.join(','),
      },
    );
  }

  private async command(r: RolloutRecord, kind: string, now: number): Promise<void> {
    if (kind === 'pause' && r.state !== 'paused' && r.state !== 'rolling_back') {
      r.pausedFrom = { state: r.state, step: r.step };
      this.move(r, 'paused', now, 'paused by operator');
    } else if (kind === 'resume' && r.state === 'paused') {
      const from = r.pausedFrom ?? { state: 'waiting_for_window', step: r.step };
      delete r.pausedFrom;
      r.step = from.step;
      this.move(r, from.state, now, 'resumed by operator');
    } else if (kind === 'abort') {
      await this.clearShadow(r);
      if (!sameWeights(r.weights, r.fromVersions)) await this.apply(r, r.fromVersions);
      this.move(r, 'aborted', now, 'aborted by operator; previous weights in place', {
        epoch: r.appliedEpoch,
      });
    } else if (kind === 'promote' && !['pending', 'loading', 'rolling_back'].includes(r.state)) {
      await this.clearShadow(r);
      await this.apply(r, weightsAt(r.fromVersions, r.plan.toVersion, 100));
      r.step = r.plan.steps.length;
      delete r.pausedFrom;
      this.move(r, 'promoted', now, 'promoted by operator', { epoch: r.appliedEpoch });
    }
  }

  /** Window and low-load conditions; updates `lowLoadSince` (then `changed` is true). */
  private async stepsMayStart(r: RolloutRecord, now: number) {
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

  private async startStep(
    r: RolloutRecord,
    step: number,
    now: number,
    reason: string,
    metrics?: TransitionMetrics,
  ): Promise<boolean> {
    const spec = r.plan.steps[step - 1];
    if (!spec) return this.move(r, 'baking', now, reason, metrics);
    await this.apply(r, weightsAt(r.fromVersions, r.plan.toVersion, spec.weight));
    const from = r.state;
    r.step = step;
    return this.move(
      r,
      'canary',
      now,
      `${reason}; step ${step}: ${spec.weight}% on version ${r.plan.toVersion}`,
      { ...metrics, epoch: r.appliedEpoch },
      from,
    );
  }

  private async evaluate(r: RolloutRecord, now: number, holdOver: boolean) {
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
    this.options.onGate?.(r.plan, result.verdict);
    return result;
  }

  private fail(r: RolloutRecord, now: number, reason: string, metrics: TransitionMetrics): boolean {
    if (r.plan.onFailure === 'pause') {
      r.pausedFrom = { state: r.state, step: r.step };
      return this.move(r, 'paused', now, reason, metrics);
    }
    return this.move(r, 'rolling_back', now, reason, metrics);
  }

  /** Commits `versions` on the plan's route unless they are already there (idempotent). */
  private async apply(r: RolloutRecord, versions: VersionWeight[]): Promise<void> {
    const { tenant, task } = r.plan;
    const snapshot = await this.ports.routes.get(tenant, task);
    if (!snapshot) throw new Error(`route (${tenant}, ${task}) no longer exists`);
    if (sameWeights(snapshot.route.versions, versions)) {
      r.appliedEpoch = Math.max(r.appliedEpoch, snapshot.epoch);
    } else {
      r.appliedEpoch = await this.ports.routes.setVersions(tenant, task, versions, {
        expectedEpoch: snapshot.epoch,
        who: `rollout:${r.id}`,
      });
    }
    r.weights = versions.map((v) => ({ ...v }));
  }

  /** Versions the model must serve: every version a route names, plus the new one if wanted. */
  private async servingSet(r: RolloutRecord, includeOld = true): Promise<number[]> {
    const { model, toVersion, tenant, task } = r.plan;
    const set = new Set<number>([toVersion]);
    for (const route of await this.ports.routes.routesOfModel(model)) {
      const own = route.tenant === tenant && route.task === task;
      if (own && !includeOld) continue;
      for (const v of route.versions) set.add(v.version);
      if (route.shadow) set.add(route.shadow.version);
    }
    if (includeOld) for (const v of r.fromVersions) set.add(v.version);
    return [...set].sort((a, b) => a - b);
  }

  private move(
    r: RolloutRecord,
    to: RolloutState,
    now: number,
    reason: string,
    metrics?: TransitionMetrics,
    from: RolloutState = r.state,
  ): boolean {
    r.timeline.push({
      at: new Date(now).toISOString(),
      from,
      to,
      step: r.step,
      reason,
      ...(metrics && Object.keys(metrics).length > 0 ? { metrics } : {}),
    });
    r.state = to;
    r.enteredAt = now;
    return true;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
