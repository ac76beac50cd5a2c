import type { TransitionMetrics } from '@mesh/rollout-contract';
import { RolloutConditions, round } from './rollout-conditions';
import type { RolloutRoute } from './rollout-route';
import { fail, move } from './rollout-transition';
import { finalWeightsOf, incomingVersions, sameWeights, targetAt } from './rollout-weights';
import type { BackendReadiness, RolloutPorts } from './rollout-ports';
import type { RolloutMachineOptions, RolloutRecord } from './rollout.types';

/**
 * One tick of each working state: look at the mesh, do that state's I/O, and move on when its
 * condition holds. Each returns whether the record changed.
 */
export class RolloutPhases {
  private readonly conditions: RolloutConditions;

  constructor(
    private readonly ports: RolloutPorts,
    private readonly route: RolloutRoute,
    private readonly options: RolloutMachineOptions,
  ) {
    this.conditions = new RolloutConditions(ports, options);
  }

  /**
   * Every incoming version (the new one; for an undo, each version it brings back) READY with
   * the pinned sha on every backend, then routable on every router: the two-step readiness.
   */
  async load(r: RolloutRecord, now: number): Promise<boolean> {
    const { model } = r.plan;
    const incoming = incomingVersions(r);
    const missing: (BackendReadiness & { version: number })[] = [];
    let backendCount = 0;
    for (const version of incoming) {
      const expected = await this.ports.catalog.expectedSha(model, version);
      const backends = await this.ports.backends.readiness(model, version);
      backendCount = backends.length;
      const wrong = backends.find((b) => b.ready && expected && b.sha && b.sha !== expected);
      if (wrong) {
        return move(
          r,
          'failed',
          now,
          `backend ${wrong.address} serves version ${version} with model_sha256 ${wrong.sha}, the manifest pins ${expected}`,
        );
      }
      for (const b of backends) {
        if (!b.ready || (expected !== undefined && !b.sha)) missing.push({ ...b, version });
      }
    }
    const versions = incoming.join(', ');
    if (missing.length > 0) {
      if (now - r.enteredAt > this.options.loadTimeoutMs) {
        const where = (b: { address: string; version: number }) =>
          incoming.length > 1 ? `${b.address} v${b.version}` : b.address;
        const why = missing.map((b) => `${where(b)}: ${b.problem ?? 'not ready'}`).join('; ');
        return move(r, 'failed', now, `version ${versions} not ready in time (${why})`);
      }
      const serving = await this.route.servingSet(r);
      await this.ports.desired.set(model, serving);
      await this.ports.backends.serve(model, serving, [...new Set(missing.map((b) => b.address))]);
      return false;
    }
    const snapshot = await this.ports.routes.get(r.plan.tenant, r.plan.task);
    const epoch = snapshot?.epoch ?? 0;
    let routers = 0;
    for (const version of incoming) {
      const verdict = await this.ports.routers.canAllRoute(model, version, epoch);
      if (!verdict.ok) return false;
      routers = verdict.routers;
    }
    return move(
      r,
      'waiting_for_window',
      now,
      `version ${versions} ready on every backend and routable on every router`,
      { backends: backendCount, routers, epoch },
    );
  }

  async waitForWindow(r: RolloutRecord, now: number): Promise<boolean> {
    const gate = await this.conditions.stepsMayStart(r, now);
    if (gate.changed && !gate.open) return true;
    if (!gate.open) return false;
    if (r.plan.warmup && r.plan.warmup.requests > 0) {
      return move(r, 'warming', now, gate.reason, gate.metrics);
    }
    return this.afterWarmup(r, now, gate.reason, gate.metrics);
  }

  async warm(r: RolloutRecord, now: number): Promise<boolean> {
    const { model, toVersion } = r.plan;
    const result = await this.ports.warmer.warm(model, toVersion, r.plan.warmup?.requests ?? 0);
    if (result.failed > 0) {
      return fail(
        r,
        now,
        `warm-up failed: ${result.failed} of ${result.ok + result.failed} requests`,
        {
          ...result,
        },
      );
    }
    return this.afterWarmup(r, now, `warm-up done (${result.ok} requests)`, { ...result });
  }

  /**
   * Mirrored traffic for the plan's hold, then a verdict on the label agreement measured by the
   * routers: at least `minAgreement` moves on to step 1, less fails the rollout (onFailure).
   * Agreement is noisy while few items are compared, so only the full hold decides.
   */
  async shadow(r: RolloutRecord, now: number): Promise<boolean> {
    const spec = r.plan.shadow;
    if (!spec) return this.startStep(r, 1, now, 'no shadow in the plan');
    await this.route.ensureShadow(r); // e.g. resumed after a pause, or a crash before the save
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
    await this.route.clearShadow(r);
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
    return fail(r, now, `shadow agreement ${numbers} < ${spec.minAgreement}`, metrics);
  }

  async canary(r: RolloutRecord, now: number): Promise<boolean> {
    const step = r.plan.steps[r.step - 1];
    if (!step) return move(r, 'baking', now, 'no further steps');
    const target = targetAt(r, step.weight);
    if (!sameWeights(r.weights, target)) {
      // The step was entered but its weights are not committed yet (e.g. after a restart).
      await this.route.apply(r, target);
      r.enteredAt = now;
      return true;
    }
    const holdOver = now - r.enteredAt >= step.holdSeconds * 1000;
    const gate = await this.conditions.evaluate(r, now, holdOver);
    if (gate.verdict === 'fail') return fail(r, now, gate.reason, gate.metrics);
    if (gate.verdict === 'wait') return false;
    if (r.step >= r.plan.steps.length) {
      return move(r, 'baking', now, `step ${r.step} held: ${gate.reason}`, gate.metrics);
    }
    const window = await this.conditions.stepsMayStart(r, now);
    if (!window.open) return window.changed;
    return this.startStep(r, r.step + 1, now, `step ${r.step} held: ${gate.reason}`, gate.metrics);
  }

  async bake(r: RolloutRecord, now: number): Promise<boolean> {
    const holdOver = now - r.enteredAt >= r.plan.bakeSeconds * 1000;
    const gate = await this.conditions.evaluate(r, now, holdOver);
    if (gate.verdict === 'fail') return fail(r, now, gate.reason, gate.metrics);
    if (gate.verdict === 'wait') return false;
    return move(r, 'promoted', now, `baked ${r.plan.bakeSeconds} s: ${gate.reason}`, gate.metrics);
  }

  async drain(r: RolloutRecord, now: number): Promise<boolean> {
    const { model } = r.plan;
    const final = finalWeightsOf(r);
    const kept = new Set(final.filter((v) => v.weight > 0).map((v) => v.version));
    const old = r.fromVersions.map((v) => v.version).filter((v) => !kept.has(v));
    const status = await this.ports.routers.drainStatus(model, old, r.appliedEpoch);
    if (status.behind.length > 0 || status.inFlight > 0) return false;
    if (!sameWeights(r.weights, final)) {
      await this.route.apply(r, final);
      return true;
    }
    const serving = await this.route.servingSet(r, false);
    const retired = old.filter((v) => !serving.includes(v));
    const pins = retired.length > 0 ? await this.ports.pins?.pinned(model, retired) : undefined;
    if (pins && pins.count > 0) {
      // Bulk jobs keep running on their pinned version after the route moved; retiring it now
      // would fail their remaining chunks. One timeline entry per change, not one per tick.
      const reason = `waiting for ${pins.count} bulk job(s) pinned to version ${retired.join(', ')}: ${pins.jobIds.join(', ')}`;
      if (r.timeline.at(-1)?.reason === reason) return false;
      return move(r, 'draining', now, reason, { pinnedJobs: pins.count });
    }
    await this.ports.desired.set(model, serving);
    try {
      await this.ports.backends.serve(model, serving);
    } catch (err: unknown) {
      // A backend that refuses the load (e.g. not in explicit mode) keeps the rollout here; the
      // timeline says why, once per distinct failure, and the next tick tries again.
      const reason = `retiring version ${retired.join(', ') || 'none'} failed, retrying: ${err instanceof Error ? err.message : String(err)}`;
      if (r.timeline.at(-1)?.reason === reason) return false;
      return move(r, 'draining', now, reason);
    }
    return move(
      r,
      'completed',
      now,
      retired.length > 0
        ? `retired version ${retired.join(', ')} on every backend`
        : old.length === 0
          ? 'every old version keeps traffic; nothing retired'
          : 'old versions still used by other routes; nothing retired',
      {
        inFlight: status.inFlight,
        routers: status.routers,
        retired: retired.join(',') || null,
        serving: serving.join(','),
      },
    );
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
    const percent = await this.route.ensureShadow(r);
    const why = `${reason}; mirroring ${percent}% of requests to version ${r.plan.toVersion}`;
    return move(r, 'shadow', now, why, { ...metrics, epoch: r.appliedEpoch });
  }

  private async startStep(
    r: RolloutRecord,
    step: number,
    now: number,
    reason: string,
    metrics?: TransitionMetrics,
  ): Promise<boolean> {
    // A validated plan has this step; without it, bake (the table allows that from canary only).
    const spec = r.plan.steps[step - 1];
    if (!spec) return move(r, 'baking', now, reason, metrics);
    await this.route.apply(r, targetAt(r, spec.weight));
    r.step = step;
    return move(
      r,
      'canary',
      now,
      `${reason}; step ${step}: ${spec.weight}% on version ${r.plan.toVersion}`,
      { ...metrics, epoch: r.appliedEpoch },
    );
  }
}
