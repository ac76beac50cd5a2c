import { Counter, Gauge, type Registry } from 'prom-client';
import type { GateVerdict } from '../rollout/rollout-gate';
import { ROLLOUT_STATES, type RolloutPlan } from '@mesh/rollout-contract';
import type { RolloutRecord } from '../rollout/rollout.types';

const ROLLOUT_LABELS = ['rollout', 'tenant', 'task', 'model', 'to_version'] as const;
type RolloutLabel = (typeof ROLLOUT_LABELS)[number];

/** Where the gauges read rollouts at scrape time (the Redis records; any replica answers). */
export interface RolloutSource {
  /** Newest first. */
  list(limit?: number): Promise<RolloutRecord[]>;
}

/**
 * The coordinator's `/metrics`: each (tenant, task)'s latest rollout (state, step, weight of the
 * new version), gate evaluations and whether this replica leads. Rollout gauges are read from
 * the persisted records on every scrape, so every replica reports the same values and a
 * finished rollout keeps showing its final state until the next rollout of its route.
 */
export class CoordinatorMetrics {
  private readonly gates: Counter<'tenant' | 'task' | 'model' | 'result'>;
  private reading: Promise<RolloutRecord[]> | undefined;

  constructor(
    registry: Registry,
    private readonly rollouts: RolloutSource,
    isLeader: () => boolean,
  ) {
    const perRollout = (
      name: string,
      help: string,
      value: (r: RolloutRecord) => number,
    ): Gauge<RolloutLabel> => {
      const gauge: Gauge<RolloutLabel> = new Gauge({
        name,
        help,
        labelNames: ROLLOUT_LABELS,
        registers: [registry],
        collect: async () => {
          const latest = await this.latest();
          gauge.reset();
          for (const r of latest) gauge.set(rolloutLabels(r), value(r));
        },
      });
      return gauge;
    };
    const state = new Gauge<RolloutLabel | 'state'>({
      name: 'mesh_rollout_state',
      help: 'Latest rollout of each route: 1 for its current state, 0 for every other state',
      labelNames: [...ROLLOUT_LABELS, 'state'],
      registers: [registry],
      collect: async () => {
        const latest = await this.latest();
        state.reset();
        for (const r of latest) {
          for (const s of ROLLOUT_STATES) {
            state.set({ ...rolloutLabels(r), state: s }, s === r.state ? 1 : 0);
          }
        }
      },
    });
    perRollout(
      'mesh_rollout_state_code',
      `Latest rollout of each route: its state as a number (${ROLLOUT_STATES.map((s, i) => `${i}=${s}`).join(', ')})`,
      (r) => ROLLOUT_STATES.indexOf(r.state),
    );
    perRollout(
      'mesh_rollout_step',
      'Latest rollout of each route: current canary step (1-based; 0 before the first)',
      (r) => r.step,
    );
    perRollout(
      'mesh_rollout_new_version_weight',
      "Latest rollout of each route: the new version's weight (percent) on the route",
      (r) => r.weights.find((w) => w.version === r.plan.toVersion)?.weight ?? 0,
    );
    this.gates = new Counter({
      name: 'mesh_rollout_gate_evaluations_total',
      help: 'Gate evaluations by this replica (as leader), by result (pass, fail, wait)',
      labelNames: ['tenant', 'task', 'model', 'result'],
      registers: [registry],
    });
    const leader: Gauge = new Gauge({
      name: 'mesh_coordinator_leader',
      help: '1 while this replica holds the leader lease, else 0',
      registers: [registry],
      collect: () => leader.set(isLeader() ? 1 : 0),
    });
  }

  gateEvaluated(plan: RolloutPlan, result: GateVerdict): void {
    this.gates.inc({ tenant: plan.tenant, task: plan.task, model: plan.model, result });
  }

  /**
   * The newest rollout of every (tenant, task). prom-client collects all gauges of a scrape
   * concurrently; they share one read of the records.
   */
  private latest(): Promise<RolloutRecord[]> {
    this.reading ??= this.readLatest().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readLatest(): Promise<RolloutRecord[]> {
    const seen = new Set<string>();
    const out: RolloutRecord[] = [];
    for (const r of await this.rollouts.list(200)) {
      const key = `${r.plan.tenant}\u0000${r.plan.task}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(r);
    }
    return out;
  }
}

function rolloutLabels(r: RolloutRecord): Record<RolloutLabel, string> {
  return {
    rollout: r.id,
    tenant: r.plan.tenant,
    task: r.plan.task,
    model: r.plan.model,
    to_version: String(r.plan.toVersion),
  };
}
