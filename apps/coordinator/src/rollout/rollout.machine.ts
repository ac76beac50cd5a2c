import { acceptsCommand, isTerminal, type OperatorCommandKind } from '@mesh/rollout-contract';
import { RolloutPhases } from './rollout-phases';
import { RolloutRoute } from './rollout-route';
import { move } from './rollout-transition';
import { incomingVersions, sameWeights, targetAt } from './rollout-weights';
import type { RolloutPorts } from './rollout.ports';
import type { RolloutMachineOptions, RolloutRecord } from './rollout.types';

/**
 * The rollout state machine. `advance` looks at one persisted record, does at most one
 * transition's worth of I/O through the ports and returns the next record (the same object
 * when nothing changed). Every side effect is idempotent (weights are compared before each
 * compare-and-swap), so re-running a step after a crash neither repeats nor skips it. Which
 * moves and commands each state allows is `TRANSITIONS` / `COMMANDS_ACCEPTED`
 * (`@mesh/rollout-contract`); `move` refuses anything else.
 */
export class RolloutMachine {
  private readonly route: RolloutRoute;
  private readonly phases: RolloutPhases;

  constructor(
    private readonly ports: RolloutPorts,
    options: RolloutMachineOptions,
  ) {
    this.route = new RolloutRoute(ports);
    this.phases = new RolloutPhases(ports, this.route, options);
  }

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
        return move(
          r,
          'loading',
          now,
          `loading version ${incomingVersions(r).join(', ')} on every backend`,
        );
      case 'loading':
        return this.phases.load(r, now);
      case 'waiting_for_window':
        return this.phases.waitForWindow(r, now);
      case 'warming':
        return this.phases.warm(r, now);
      case 'shadow':
        return this.phases.shadow(r, now);
      case 'canary':
        return this.phases.canary(r, now);
      case 'baking':
        return this.phases.bake(r, now);
      case 'promoted':
        return move(r, 'draining', now, 'waiting for in-flight requests on the old versions');
      case 'draining':
        return this.phases.drain(r, now);
      case 'rolling_back':
        await this.route.clearShadow(r);
        await this.route.apply(r, r.fromVersions);
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
  private async command(r: RolloutRecord, kind: OperatorCommandKind, now: number): Promise<void> {
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
        await this.route.clearShadow(r);
        if (!sameWeights(r.weights, r.fromVersions)) await this.route.apply(r, r.fromVersions);
        move(r, 'aborted', now, 'aborted by operator; previous weights in place', {
          epoch: r.appliedEpoch,
        });
        return;
      case 'promote':
        await this.route.clearShadow(r);
        await this.route.apply(r, targetAt(r, 100));
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
