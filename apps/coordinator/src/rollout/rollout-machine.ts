import { acceptsCommand, isTerminal, type OperatorCommandKind } from '@mesh/rollout-contract';
import { tracingEnabled } from '@mesh/telemetry';
import { RolloutPhases } from './rollout-phases';
import { RolloutRoute } from './rollout-route';
import { tracedStep } from './rollout-traced-ports';
import { move } from './rollout-transition';
import { incomingVersions, sameWeights, targetAt } from './rollout-weights';
import type { RolloutPorts } from './rollout-ports';
import type { RolloutMachineOptions, RolloutRecord } from './rollout.types';

/** What a step runs with: the machine's own parts, or a traced step's over traced ports. */
interface StepParts {
  route: RolloutRoute;
  phases: RolloutPhases;
}

/**
 * The rollout state machine. `advance` looks at one persisted record, does at most one
 * transition's worth of I/O through the ports and returns the next record (the same object
 * when nothing changed). Every side effect is idempotent (weights are compared before each
 * compare-and-swap), so re-running a step after a crash neither repeats nor skips it. Which
 * moves and commands each state allows is `TRANSITIONS` / `COMMANDS_ACCEPTED`
 * (`@mesh/rollout-contract`); `move` refuses anything else.
 *
 * With tracing on, each advance that moves the rollout or writes something is one trace
 * (`rollout.step`, see rollout-step.trace.ts); its parts run over traced ports, so the steps
 * themselves are the same code either way.
 */
export class RolloutMachine {
  private readonly parts: StepParts;

  constructor(
    private readonly ports: RolloutPorts,
    private readonly options: RolloutMachineOptions,
  ) {
    this.parts = partsOf(ports, options);
  }

  async advance(record: RolloutRecord): Promise<RolloutRecord> {
    if (isTerminal(record.state)) return record;
    if (!tracingEnabled()) return this.run(record, this.parts);
    const traced = tracedStep(record, this.ports, this.options);
    try {
      const next = await this.run(record, partsOf(traced.ports, traced.options));
      traced.trace.finish(next);
      return next;
    } catch (err: unknown) {
      traced.trace.fail(err);
      throw err;
    }
  }

  private async run(record: RolloutRecord, parts: StepParts): Promise<RolloutRecord> {
    const r = structuredClone(record);
    const now = this.ports.clock.now();
    if (r.command) {
      const { kind } = r.command;
      delete r.command;
      await this.command(r, kind, now, parts);
      return r;
    }
    const changed = await this.step(r, now, parts);
    return changed ? r : record;
  }

  private async step(r: RolloutRecord, now: number, parts: StepParts): Promise<boolean> {
    switch (r.state) {
      case 'pending':
        return move(
          r,
          'loading',
          now,
          `loading version ${incomingVersions(r).join(', ')} on every backend`,
        );
      case 'loading':
        return parts.phases.load(r, now);
      case 'waiting_for_window':
        return parts.phases.waitForWindow(r, now);
      case 'warming':
        return parts.phases.warm(r, now);
      case 'shadow':
        return parts.phases.shadow(r, now);
      case 'canary':
        return parts.phases.canary(r, now);
      case 'baking':
        return parts.phases.bake(r, now);
      case 'promoted':
        return move(r, 'draining', now, 'waiting for in-flight requests on the old versions');
      case 'draining':
        return parts.phases.drain(r, now);
      case 'rolling_back':
        await parts.route.clearShadow(r);
        await parts.route.apply(r, r.fromVersions);
        return move(r, 'rolled_back', now, 'previous weights restored', {
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

  /**
   * Carries out an operator command. The API accepted it for the state it saw; if the state
   * moved on since (the leader's save raced the command), a command the new state does not
   * accept is dropped.
   */
  private async command(
    r: RolloutRecord,
    kind: OperatorCommandKind,
    now: number,
    { route }: StepParts,
  ): Promise<void> {
    if (!acceptsCommand(r.state, kind)) return;
    switch (kind) {
      case 'pause':
        r.pausedFrom = { state: r.state, step: r.step };
        move(r, 'paused', now, 'paused by operator');
        return;
      case 'resume': {
        const from = r.pausedFrom ?? { state: 'waiting_for_window', step: r.step };
        delete r.pausedFrom;
        r.step = from.step;
        move(r, from.state, now, 'resumed by operator');
        return;
      }
      case 'abort':
        await route.clearShadow(r);
        if (!sameWeights(r.weights, r.fromVersions)) await route.apply(r, r.fromVersions);
        move(r, 'aborted', now, 'aborted by operator; previous weights in place', {
          epoch: r.appliedEpoch,
        });
        return;
      case 'promote':
        await route.clearShadow(r);
        await route.apply(r, targetAt(r, 100));
        r.step = r.plan.steps.length;
        delete r.pausedFrom;
        move(r, 'promoted', now, 'promoted by operator', { epoch: r.appliedEpoch });
        return;
      case 'undo':
        // Never queued: RolloutService.undo starts a new rollout instead.
        return;
    }
  }
}

function partsOf(ports: RolloutPorts, options: RolloutMachineOptions): StepParts {
  const route = new RolloutRoute(ports);
  return { route, phases: new RolloutPhases(ports, route, options) };
}
