import { randomUUID } from 'node:crypto';
import { acceptsCommand, type OperatorCommandKind, type RolloutView } from '@mesh/rollout-contract';
import { parseRolloutPlan } from './rollout-plan.schema';
import type { RolloutPlanValidator } from './rollout-plan.validator';
import {
  InvalidCommandError,
  RevisionConflictError,
  RolloutConflictError,
  RolloutNotFoundError,
} from './rollout.errors';
import type { Clock } from './rollout.ports';
import type { RolloutRepository } from './rollout.repository';
import type { RolloutRecord } from './rollout.types';

/**
 * Plans in, records out. Commands are queued on the record and carried out by the leader's
 * state machine, so any replica can accept them and every transition happens in one place.
 */
export class RolloutService {
  constructor(
    private readonly repository: RolloutRepository,
    private readonly validator: RolloutPlanValidator,
    private readonly clock: Clock,
  ) {}

  async create(input: unknown): Promise<RolloutView> {
    const plan = parseRolloutPlan(input);
    const activeId = await this.repository.activeId(plan.tenant, plan.task);
    if (activeId) throw new RolloutConflictError(plan.tenant, plan.task, activeId);
    const fromVersions = await this.validator.validate(plan);
    const now = this.clock.now();
    const record: RolloutRecord = {
      id: `ro-${new Date(now).toISOString().slice(0, 10).replace(/-/g, '')}-${randomUUID().slice(0, 8)}`,
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

  async command(id: string, kind: OperatorCommandKind): Promise<RolloutView> {
    for (let attempt = 0; ; attempt++) {
      const record = await this.record(id);
      if (!acceptsCommand(record.state, kind)) throw new InvalidCommandError(kind, record.state);
      if (record.command) {
        throw new InvalidCommandError(kind, `still carrying out '${record.command.kind}'`);
      }
      try {
        const saved = await this.repository.save({
          ...record,
          command: { kind, at: this.clock.now() },
        });
        return view(saved);
      } catch (err: unknown) {
        if (!(err instanceof RevisionConflictError) || attempt >= 5) throw err;
      }
    }
  }

  private async record(id: string): Promise<RolloutRecord> {
    const record = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? await this.repository.get(id) : undefined;
    if (!record) throw new RolloutNotFoundError(id);
    return record;
  }
}

function view(r: RolloutRecord): RolloutView {
  return {
    id: r.id,
    plan: r.plan,
    state: r.state,
    step: r.step,
    weights: r.weights,
    ...(r.command ? { pendingCommand: r.command.kind } : {}),
    timeline: r.timeline,
  };
}
