/**
 * The coordinator's scripts on a real Redis Cluster (3 primaries): the leader lease, a fenced
 * table commit, rollout records (create and fenced save) and the desired versions. A script
 * whose keys span slots fails with CROSSSLOT, so each call passing means its keys share the
 * `{routes}` hash tag.
 */
import { FencedWriteError, RoutingTableRepository, routingKeys } from '@mesh/routing';
import { RedisDesiredVersions } from '../rollout/adapters/redis-desired-versions';
import { RolloutRepository } from '../rollout/rollout.repository';
import { rolloutRecord } from '../testing/rollout-fixtures';
import { LeaderLease } from './leader-lease';
import { suiteCluster } from '../../../../test/support/suite-redis';

const cluster = suiteCluster(__filename, 'int-coordinator-cluster');
const PREFIX = cluster.prefix;

beforeAll(() => cluster.start());
afterAll(() => cluster.close());

describe('coordinator state on a Redis Cluster', () => {
  it('takes the lease, commits the table under its fence, and hands the lease back', async () => {
    const keys = routingKeys(PREFIX);
    const table = new RoutingTableRepository(cluster.redis, { keyPrefix: PREFIX });
    await table.seedIfAbsent(
      {
        tenants: [],
        routes: [
          { tenant: '*', task: 'qt', model: 'qt-zh', versions: [{ version: 1, weight: 100 }] },
        ],
      },
      'test',
    );
    const a = new LeaderLease(cluster.redis, keys, 'coordinator-a', 60_000);
    const b = new LeaderLease(cluster.redis, keys, 'coordinator-b', 60_000);
    const fence = await a.tryAcquire();
    expect(fence?.token).toBeGreaterThan(0);
    await expect(b.tryAcquire()).resolves.toBeUndefined();
    const v2 = { tenant: '*', task: 'qt', model: 'qt-zh', versions: [{ version: 2, weight: 100 }] };
    expect(await table.upsertRoute(v2, { who: 'coordinator-a', fence })).toMatchObject({
      epoch: 2,
    });
    await a.release();
    const next = await b.tryAcquire();
    expect(next?.token).toBeGreaterThan(fence?.token ?? Infinity);
    await expect(table.upsertRoute(v2, { who: 'coordinator-a', fence })).rejects.toBeInstanceOf(
      FencedWriteError,
    );
    await b.release();
  });

  it('creates and saves rollout records, fenced by the lease', async () => {
    const rollouts = new RolloutRepository(cluster.redis, PREFIX);
    const lease = new LeaderLease(cluster.redis, routingKeys(PREFIX), 'coordinator-c', 60_000);
    const fence = await lease.tryAcquire();
    const created = await rollouts.create(rolloutRecord({ id: 'ro-cluster' }));
    const saved = await rollouts.save({ ...created, state: 'loading' }, fence);
    expect(saved.rev).toBe(created.rev + 1);
    expect((await rollouts.get('ro-cluster'))?.state).toBe('loading');
    expect(await rollouts.activeId(created.plan.tenant, created.plan.task)).toBe('ro-cluster');
    expect((await rollouts.list()).map((r) => r.id)).toEqual(['ro-cluster']);
    await lease.release();
  });

  it('keeps the desired versions', async () => {
    const desired = new RedisDesiredVersions(cluster.redis, PREFIX);
    await desired.set('qt-zh', [1, 2]);
    expect(await desired.all()).toEqual(new Map([['qt-zh', [1, 2]]]));
  });
});
