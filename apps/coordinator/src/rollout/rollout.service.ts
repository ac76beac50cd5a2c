import { randomUUID } from 'node:crypto';
import { handleType, retry } from 'cockatiel';
import { acceptsCommand, type OperatorCommandKind, type RolloutView } from '@mesh/rollout-contract';
import { parseRolloutPlan } from './rollout-plan.schema';
import type { RolloutPlanValidator } from './rollout-plan.check';
import type { RolloutUndoPlanner } from './rollout-undo';
import {
  InvalidCommandError,
  RevisionConflictError,
  RolloutConflictError,
  RolloutNotFoundError,
} from './rollout.errors';
import type { Clock } from './rollout-ports';
import type { RolloutRepository } from './rollout.repository';
import type { RolloutRecord } from './rollout.types';
import { finalWeightsOf } from './rollout-weights';

/**
 * A save that lost a race with another writer of the record (RevisionConflictError) is tried
 * again at once on a fresh read: the other write has already landed. A command gets 5 more
 * tries, the undo note 4.
 */
const COMMAND_SAVE = retry(handleType(RevisionConflictError), { maxAttempts: 5 });
const UNDONE_MARK = retry(handleType(RevisionConflictError), { maxAttempts: 4 });

/**
 * Plans in, records out. Commands are queued on the record and carried out by the leader's
 * state machine, so any replica can accept them and every transition happens in one place.
 */
export class RolloutService {
  constructor(
    private readonly repository: RolloutRepository,
    private readonly validator: RolloutPlanValidator,
    private readonly undoPlanner: RolloutUndoPlanner,
    private readonly clock: Clock,
  ) {}

  async create(input: unknown): Promise<RolloutView> {
    const plan = parseRolloutPlan(input);
    const activeId = await this.repository.activeId(plan.tenant, plan.task);
    if (activeId) throw new RolloutConflictError(plan.tenant, plan.task, activeId);
    const fromVersions = await this.validator.validate(plan);
    const now = this.clock.now();
    const record: RolloutRecord = {
      id: newRolloutId(now),
      plan,
      state: 'pending',
      step: 0,
      fromVersions,
      weights: fromVersions,
      appliedEpoch: 0,
      createdAt: now,
      enteredAt: now,
      timeline: [],
      rev: 0,
    };
    return view(await this.repository.create(record));
  }

  async list(): Promise<RolloutView[]> {
    return (await this.repository.list()).map(view);
  }

  async get(id: string): Promise<RolloutView> {
    return view(await this.record(id));
  }

  /**
   * Undoes a completed rollout: starts a new rollout back to the weights it started from (see
   * RolloutUndoPlanner). Refused while another rollout of the route runs, and, unless `force`,
   * when the route was edited after the rollout completed.
   */
  async undo(id: string, options: { force: boolean }): Promise<RolloutView> {
    const done = await this.record(id);
    if (!acceptsCommand(done.state, 'undo')) throw new InvalidCommandError('undo', done.state);
    const { tenant, task } = done.plan;
    const activeId = await this.repository.activeId(tenant, task);
    if (activeId) throw new RolloutConflictError(tenant, task, activeId);
    const now = this.clock.now();
    const record = await this.undoPlanner.plan(done, { ...options, id: newRolloutId(now), now });
    const created = await this.repository.create(record);
    await this.markUndone(done.id, created.id);
    return view(created);
  }

  async command(id: string, kind: OperatorCommandKind): Promise<RolloutView> {
    if (kind === 'undo') return this.undo(id, { force: false });
    return COMMAND_SAVE.execute(async () => {
      const record = await this.record(id);
      if (!acceptsCommand(record.state, kind)) throw new InvalidCommandError(kind, record.state);
      if (record.command) {
        throw new InvalidCommandError(kind, `still carrying out '${record.command.kind}'`);
      }
      const saved = await this.repository.save({
        ...record,
        command: { kind, at: this.clock.now() },
      });
      return view(saved);
    });
  }

  /** Notes the undo on the completed rollout (a terminal record: only the API writes it). */
  private async markUndone(id: string, undoId: string): Promise<void> {
    try {
      await UNDONE_MARK.execute(async () => {
        const record = await this.record(id);
        await this.repository.save({ ...record, undoneBy: undoId });
      });
    } catch (err: unknown) {
      // The undo rollout exists either way: a note that keeps losing races is left unwritten.
      if (!(err instanceof RevisionConflictError)) throw err;
    }
  }

  private async record(id: string): Promise<RolloutRecord> {
    const record = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? await this.repository.get(id) : undefined;
    if (!record) throw new RolloutNotFoundError(id);
    return record;
  }
}

function newRolloutId(now: number): string {
  return `ro-${new Date(now).toISOString().slice(0, 10).replace(/-/g, '')}-${randomUUID().slice(0, 8)}`;
}

function view(r: RolloutRecord): RolloutView {
  return {
    id: r.id,
    plan: r.plan,
    state: r.state,
    step: r.step,
    weights: r.weights,
    ...(r.command ? { pendingCommand: r.command.kind } : {}),
    finalWeights: finalWeightsOf(r),
    ...(r.undoOf ? { undoOf: r.undoOf } : {}),
    ...(r.undoneBy ? { undoneBy: r.undoneBy } : {}),
    timeline: r.timeline,
  };
}
