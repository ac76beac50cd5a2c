import { tracingEnabled } from '@mesh/telemetry';
import { FakeClock } from '../testing/fake-mesh';
import {
  childNamed,
  childrenOf,
  InMemoryTracing,
  type ReadableSpan,
} from '../../../../libs/telemetry/src/testing/in-memory-tracing';
import { T0, questionTypeRoute, rolloutRecord } from '../testing/rollout-fixtures';
import { healthyMesh, runnerReplica } from '../testing/runner-replica';
import { suiteRedis } from '../../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-rollout.trace');
const FILE_PREFIX = suite.prefix;
let n = 0;

afterAll(() => suite.close());

/**
 * The leader over real Redis (routing table, lease, rollout records, each test under its own
 * prefix); backends, routers and signals in memory. Runs one rollout to its end.
 */
async function runToEnd(id: string) {
  const prefix = `${FILE_PREFIX}:${++n}`;
  const clock = new FakeClock(T0);
  const mesh = healthyMesh();
  const replica = runnerReplica(suite.redis, prefix, 'coordinator-a', clock, mesh, 60_000);
  const { runner, repository, table, lease, routes } = replica;
  await table.seedIfAbsent({ tenants: [], routes: [questionTypeRoute()] }, 'seed');
  const plan = {
    steps: [
      { weight: 20, holdSeconds: 30 },
      { weight: 100, holdSeconds: 30 },
    ],
    bakeSeconds: 0,
  };
  await repository.create(rolloutRecord({ id, plan, rev: 0 }));
  for (let i = 0; i < 60; i++) {
    if ((await repository.get(id))?.state === 'completed') break;
    await runner.tick();
    clock.advance(10);
  }
  await lease.release();
  const done = await repository.get(id);
  const epoch = (await routes.get('*', 'question-type'))?.epoch;
  return { done, epoch, mesh };
}

const roots = (spans: ReadableSpan[]) => spans.filter((s) => s.name === 'rollout.step');

describe('Rollout traces from the leader loop (real Redis)', () => {
  it('records each step the leader saved, its shifts carrying the routing table’s epochs', async () => {
    const tracing = new InMemoryTracing();
    try {
      const { done, epoch } = await runToEnd('ro-traced');
      expect(done?.state).toBe('completed');
      const spans = await tracing.spans();
      const steps = roots(spans);
      expect(steps.filter((s) => s.attributes['mesh.rollout.outcome'] !== 'waiting').length).toBe(
        done!.timeline.length,
      );
      const canary = steps.filter((s) => s.attributes['mesh.rollout.outcome'] === 'canary');
      expect(canary.map((s) => s.attributes['mesh.rollout.weight'])).toEqual([20, 100]);
      const shifts = canary.map((s) => childNamed(spans, s, 'rollout.shift'));
      const epochs = shifts.map((s) => s.attributes['mesh.routing.epoch'] as number);
      expect(epochs[1]).toBeGreaterThan(epochs[0]!);
      // The last write of the rollout (the drain's final weights) is the table's epoch now.
      const written = steps.flatMap((s) =>
        childrenOf(spans, s).filter((c) => c.name === 'rollout.shift'),
      );
      expect(written.at(-1)?.attributes['mesh.routing.epoch']).toBe(epoch);
      expect(steps.at(-1)?.attributes).toMatchObject({
        'mesh.rollout.id': 'ro-traced',
        'mesh.rollout.outcome': 'completed',
        'mesh.rollout.metric.retired': '1',
      });
    } finally {
      expect(await tracing.shutdown()).toBe(false);
    }
  });

  it('with tracing off the leader runs the same rollout to the same record', async () => {
    const tracing = new InMemoryTracing();
    const traced = await runToEnd('ro-same');
    await tracing.shutdown();
    expect(tracingEnabled()).toBe(false);
    const plain = await runToEnd('ro-same');
    expect(plain.done).toEqual(traced.done);
    expect(plain.epoch).toBe(traced.epoch);
    expect(plain.mesh.loads).toEqual(traced.mesh.loads);
  });
});
