import { Registry } from 'prom-client';
import type { RolloutState } from '@mesh/rollout-contract';
import type { RolloutRecord } from '../rollout/rollout.types';
import { valuesBySeries } from '../../../../libs/telemetry/src/testing/prometheus-text';
import { CoordinatorMetrics } from './coordinator.metrics';

function record(id: string, task: string, state: RolloutState, step: number, weight: number) {
  return {
    id,
    plan: { tenant: '*', task, model: 'm', toVersion: 2, steps: [], bakeSeconds: 0 },
    state,
    step,
    weights: [
      { version: 1, weight: 100 - weight },
      { version: 2, weight },
    ],
  } as unknown as RolloutRecord;
}

/** Sample lines of one metric (labels as written → value). */
const samples = valuesBySeries;

describe('CoordinatorMetrics (scraped)', () => {
  it("exports each route's latest rollout, gate verdicts and leadership", async () => {
    const registry = new Registry();
    let leader = false;
    // Newest first: ro-3 is the latest of question-type, ro-1 an older one of the same route.
    const list = jest.fn(async () => [
      record('ro-3', 'question-type', 'canary', 2, 25),
      record('ro-2', 'intent', 'rolled_back', 1, 0),
      record('ro-1', 'question-type', 'completed', 3, 100),
    ]);
    const metrics = new CoordinatorMetrics(registry, { list }, () => leader);
    metrics.gateEvaluated(record('ro-3', 'question-type', 'canary', 2, 25).plan, 'pass');
    metrics.gateEvaluated(record('ro-3', 'question-type', 'canary', 2, 25).plan, 'wait');
    metrics.gateEvaluated(record('ro-3', 'question-type', 'canary', 2, 25).plan, 'wait');

    let text = await registry.metrics();
    const labels = (id: string, task: string) =>
      `{rollout="${id}",tenant="*",task="${task}",model="m",to_version="2"}`;
    const states = samples(text, 'mesh_rollout_state');
    // One-hot over every state, for the latest rollout of each route only.
    expect(Object.keys(states)).toHaveLength(2 * 15);
    expect(
      Object.entries(states)
        .filter(([, v]) => v === 1)
        .map(([k]) => k),
    ).toEqual([
      `{rollout="ro-3",tenant="*",task="question-type",model="m",to_version="2",state="canary"}`,
      `{rollout="ro-2",tenant="*",task="intent",model="m",to_version="2",state="rolled_back"}`,
    ]);
    expect(samples(text, 'mesh_rollout_state_code')).toEqual({
      [labels('ro-3', 'question-type')]: 5,
      [labels('ro-2', 'intent')]: 12,
    });
    expect(samples(text, 'mesh_rollout_step')).toEqual({
      [labels('ro-3', 'question-type')]: 2,
      [labels('ro-2', 'intent')]: 1,
    });
    expect(samples(text, 'mesh_rollout_new_version_weight')).toEqual({
      [labels('ro-3', 'question-type')]: 25,
      [labels('ro-2', 'intent')]: 0,
    });
    expect(samples(text, 'mesh_rollout_gate_evaluations_total')).toEqual({
      '{tenant="*",task="question-type",model="m",result="pass"}': 1,
      '{tenant="*",task="question-type",model="m",result="wait"}': 2,
    });
    expect(text).toContain('mesh_coordinator_leader 0');
    // The four rollout gauges of one scrape share one read of the records.
    expect(list).toHaveBeenCalledTimes(1);

    leader = true;
    text = await registry.metrics();
    expect(text).toContain('mesh_coordinator_leader 1');
  });
});
