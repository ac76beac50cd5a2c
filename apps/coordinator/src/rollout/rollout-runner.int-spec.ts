import { routingKeys } from '@mesh/routing';
import { RoutingRouteStore } from './adapters/routing-route-store';
import { FakeClock } from '../testing/fake-mesh';
import {
  T0,
  TEN_FIFTY_HUNDRED_ROUTES,
  questionTypeRoute,
  rolloutRecord,
} from '../testing/rollout-fixtures';
import { healthyMesh, runnerReplica } from '../testing/runner-replica';
import type { RolloutRecord } from './rollout.types';
import { suiteRedis } from '../../../../test/support/suite-redis';
import { pollUntil } from '../../../../test/support/poll';

const suite = suiteRedis(__filename, 'test-rollout.runner');
const PREFIX = suite.prefix;

afterAll(() => suite.close());

const route = questionTypeRoute();

describe('RolloutRunner (real Redis): leader loss and resume', () => {
  it('a second replica continues from the persisted step after the leader dies; the stale leader cannot write', async () => {
    const clock = new FakeClock(T0);
    const mesh = healthyMesh();
    const a = runnerReplica(suite.redis, PREFIX, 'coordinator-a', clock, mesh, 400);
    const b = runnerReplica(suite.redis, PREFIX, 'coordinator-b', clock, mesh, 60_000);
    await a.table.seedIfAbsent({ tenants: [], routes: [route] }, 'seed');
    const record = rolloutRecord({
      id: 'ro-resume',
      plan: {
        steps: [
          { weight: 10, holdSeconds: 30 },
          { weight: 50, holdSeconds: 30 },
          { weight: 100, holdSeconds: 30 },
        ],
        bakeSeconds: 0,
        gates: undefined,
      },
      rev: 0,
    });
    await a.repository.create(record);

    // Replica a leads up to canary step 2 (ticks driven by hand; the clock is injected).
    for (let i = 0; i < 50; i++) {
      const r = await a.repository.get(record.id);
      if (r?.state === 'canary' && r.step === 2) break;
      await a.runner.tick();
      clock.advance(31);
    }
    expect(a.runner.isLeader).toBe(true);
    const atStep2 = await a.repository.get(record.id);
    expect([atStep2?.state, atStep2?.step]).toEqual(['canary', 2]);
    await b.runner.tick();
    expect(b.runner.isLeader).toBe(false);

    // a "is killed": it stops renewing. b takes over once the lease lapses.
    // The lease is a Redis key with a TTL: b's ticks win it once that lapses.
    await pollUntil(
      async () => {
        await b.runner.tick();
        return b.runner.isLeader ? true : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'b to take over the lapsed lease' },
    );
    for (let i = 0; i < 50; i++) {
      if ((await b.repository.get(record.id))?.state === 'completed') break;
      clock.advance(31);
      await b.runner.tick();
    }
    const done = await b.repository.get(record.id);
    expect(done?.state).toBe('completed');
    // Each step committed exactly once, in order, across both leaders.
    const audit = (await a.table.auditLog()).reverse().filter((e) => e.who === 'rollout:ro-resume');
    expect(audit.map((e) => (e.after as { versions: unknown }).versions)).toEqual(
      TEN_FIFTY_HUNDRED_ROUTES,
    );
    expect(done?.timeline.filter((t) => t.to === 'canary').map((t) => t.step)).toEqual([1, 2, 3]);

    // The stale leader wakes up with its old token: table and record writes are refused.
    const before = await a.table.load();
    await a.runner.tick();
    expect(a.runner.isLeader).toBe(false);
    const staleFence = { leaseKey: routingKeys(PREFIX).leaderLease, token: 1 };
    const staleTable = new RoutingRouteStore(a.table, () => staleFence);
    await expect(
      staleTable.setVersions('*', 'question-type', route.versions, {
        expectedEpoch: before?.epoch ?? 0,
        who: 'rollout:stale',
      }),
    ).rejects.toThrow(/fencing token 1 no longer holds/);
    const staleSave = { ...(done as RolloutRecord), state: 'aborted' as const };
    await expect(a.repository.save(staleSave, staleFence)).rejects.toThrow(/fencing token/);
    // Without any lease the coordinator's route store does not write at all.
    const leaseless = new RoutingRouteStore(a.table, () => undefined);
    await expect(
      leaseless.setVersions('*', 'question-type', route.versions, {
        expectedEpoch: before?.epoch ?? 0,
        who: 'rollout:none',
      }),
    ).rejects.toThrow(/fencing token 0/);
    expect((await a.table.load())?.epoch).toBe(before?.epoch);
  });
});
