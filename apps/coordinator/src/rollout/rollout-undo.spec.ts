import type { VersionWeight } from '@mesh/routing';
import { FakeClock, signals, type FakeMesh } from '../testing/fake-mesh';
import { MODEL, T0, machineWith, meshWithRoute, rolloutRecord } from '../testing/rollout-fixtures';
import { PlanRejectedError, RouteChangedError } from './rollout.errors';
import type { RolloutMachine } from './rollout-machine';
import type { RolloutRecord } from './rollout.types';
import { RolloutUndoPlanner } from './rollout-undo';

const before: VersionWeight[] = [
  { version: 1, weight: 90 },
  { version: 2, weight: 10 },
];
const healthy = signals({ requests: 500, errors: 0, errorRate: 0, p99Ms: 20, ratePerSecond: 5 });

async function runUntilEnd(
  machine: RolloutMachine,
  mesh: FakeMesh,
  clock: FakeClock,
  record: RolloutRecord,
): Promise<RolloutRecord> {
  let r = record;
  for (let i = 0; i < 500 && !['completed', 'failed', 'rolled_back'].includes(r.state); i++) {
    mesh.syncRouters();
    r = await machine.advance(r);
    clock.advance(5);
  }
  return r;
}

/** A rollout of v1:90/v2:10 → v2 run to completion on a fake mesh (v1 retired). */
async function completedRollout(from: VersionWeight[] = before) {
  const clock = new FakeClock(T0);
  const mesh = meshWithRoute(from, [1, 2]);
  mesh.signals.set(1, healthy);
  mesh.signals.set(2, healthy);
  const machine = machineWith(mesh, clock);
  const done = await runUntilEnd(
    machine,
    mesh,
    clock,
    rolloutRecord({ fromVersions: from, weights: from }),
  );
  return { clock, mesh, machine, done };
}

describe('undo of a completed rollout', () => {
  it('brings the retired version back on every backend, then restores the previous weights', async () => {
    const { clock, mesh, machine, done } = await completedRollout();
    expect(done.state).toBe('completed');
    expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 2, weight: 100 }]);
    expect([...mesh.backends.values()].map((m) => m.get(MODEL))).toEqual([[2], [2]]);

    const planner = new RolloutUndoPlanner(mesh, mesh);
    const undo = await planner.plan(done, { force: false, id: 'ro-undo', now: clock.now() });
    expect(undo).toMatchObject({
      undoOf: 'ro-1',
      state: 'pending',
      fromVersions: [{ version: 2, weight: 100 }],
      finalWeights: before,
      plan: { toVersion: 1, steps: [{ weight: 100, holdSeconds: 0 }], onFailure: 'rollback' },
    });

    const auditBefore = mesh.audit.length;
    let r = await machine.advance(undo); // pending → loading
    r = await machine.advance(r); // loading: asks the backends for version 1 again
    // No weight moved before version 1 is READY everywhere.
    expect(mesh.audit).toHaveLength(auditBefore);
    expect([...mesh.backends.values()].map((m) => m.get(MODEL))).toEqual([
      [1, 2],
      [1, 2],
    ]);
    const finished = await runUntilEnd(machine, mesh, clock, r);
    expect(finished.state).toBe('completed');
    expect(finished.timeline.map((t) => t.to)).toEqual([
      'loading',
      'waiting_for_window',
      'canary',
      'baking',
      'promoted',
      'draining',
      'completed',
    ]);
    expect(mesh.weightsOf('*', 'question-type')).toEqual(before);
    // Both versions carry traffic again, so nothing is retired.
    expect(finished.timeline.at(-1)?.reason).toBe(
      'every old version keeps traffic; nothing retired',
    );
    expect(mesh.desiredMap.get(MODEL)).toEqual([1, 2]);
    expect(new Set(mesh.audit.slice(auditBefore).map((a) => a.who))).toEqual(
      new Set(['rollout:ro-undo']),
    );
  });

  it('retires the version the undone rollout brought in when the old weights did not name it', async () => {
    const { clock, mesh, machine, done } = await completedRollout([{ version: 1, weight: 100 }]);
    const undo = await new RolloutUndoPlanner(mesh, mesh).plan(done, {
      force: false,
      id: 'ro-undo',
      now: clock.now(),
    });
    const finished = await runUntilEnd(machine, mesh, clock, undo);
    expect(finished.state).toBe('completed');
    expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 1, weight: 100 }]);
    expect(finished.timeline.at(-1)?.reason).toBe('retired version 2 on every backend');
    expect([...mesh.backends.values()].map((m) => m.get(MODEL))).toEqual([[1], [1]]);
  });

  it('refuses when the route was edited after the rollout completed, unless forced', async () => {
    const { clock, mesh, done } = await completedRollout();
    await mesh.setVersions(
      '*',
      'question-type',
      [
        { version: 2, weight: 60 },
        { version: 3, weight: 40 },
      ],
      { expectedEpoch: mesh.epoch, who: 'admin:ops' },
    );
    const planner = new RolloutUndoPlanner(mesh, mesh);
    const refused = await planner
      .plan(done, { force: false, id: 'ro-undo', now: clock.now() })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RouteChangedError);
    expect((refused as RouteChangedError).message).toContain(
      `route (*, question-type) changed since rollout ro-1 completed (epoch ${mesh.epoch} route.upsert by admin:ops)`,
    );
    const forced = await planner.plan(done, { force: true, id: 'ro-undo', now: clock.now() });
    expect(forced.fromVersions).toEqual([
      { version: 2, weight: 60 },
      { version: 3, weight: 40 },
    ]);
    expect(forced.finalWeights).toEqual(before);
  });

  it('refuses when the route already has the old weights, or a version is gone from the repository', async () => {
    const { clock, mesh, done } = await completedRollout();
    await mesh.setVersions('*', 'question-type', before, {
      expectedEpoch: mesh.epoch,
      who: 'admin:ops',
    });
    const planner = new RolloutUndoPlanner(mesh, mesh);
    const options = { force: true, id: 'ro-undo', now: clock.now() };
    await expect(planner.plan(done, options)).rejects.toThrow(
      'route (*, question-type) already has the weights from before rollout ro-1 (v1:90 v2:10); nothing to undo',
    );
    await mesh.setVersions('*', 'question-type', [{ version: 2, weight: 100 }], {
      expectedEpoch: mesh.epoch,
      who: 'admin:ops',
    });
    mesh.catalogProblems = ['version 1 of question-type-zh is not in the model repository'];
    const refused = await planner.plan(done, options).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PlanRejectedError);
    expect((refused as PlanRejectedError).issues).toEqual([
      { path: 'finalWeights', message: mesh.catalogProblems[0] },
      { path: 'finalWeights', message: mesh.catalogProblems[0] },
    ]);
  });
});
