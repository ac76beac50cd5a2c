/**
 * The routing table's scripts, MULTIs and pipelines on a real Redis Cluster (3 primaries): a
 * script or MULTI whose keys span slots fails with CROSSSLOT, a pipeline spanning primaries
 * with ioredis's "same slots allocation group" error, so each call here passing means its keys
 * share the `{routes}` hash tag or it addresses one key.
 */
import { pollUntil } from '../../../test/support/poll';
import { RoutingTableCache } from './routing-table-cache';
import { RoutingTableRepository } from './routing-table.repository';
import { EpochConflictError, FencedWriteError } from './routing.errors';
import { routingKeys } from './routing.keys';
import type { Route } from './routing.types';
import { seededTable } from './testing/routing-fixtures';
import { suiteCluster } from '../../../test/support/suite-redis';

const cluster = suiteCluster(__filename, 'int-routing-cluster');
const PREFIX = cluster.prefix;

beforeAll(() => cluster.start());
afterAll(() => cluster.close());

const seed = seededTable();
const [route] = seed.routes as [Route];

describe('routing on a Redis Cluster', () => {
  it('seeds, commits with compare-and-set on the epoch and the lease fence, and audits', async () => {
    const repo = new RoutingTableRepository(cluster.redis, { keyPrefix: PREFIX });
    expect(await repo.seedIfAbsent(seed, 'test')).toMatchObject({ seeded: true, epoch: 1 });
    const v4 = { ...route, versions: [{ version: 4, weight: 100 }] };
    expect(await repo.upsertRoute(v4, { who: 'test', expectedEpoch: 1 })).toMatchObject({
      epoch: 2,
    });
    await expect(repo.upsertRoute(route, { who: 'test', expectedEpoch: 1 })).rejects.toBeInstanceOf(
      EpochConflictError,
    );
    const leaseKey = routingKeys(PREFIX).leaderLease;
    await cluster.redis.set(leaseKey, '7 coordinator-a', 'PX', 60_000);
    expect(
      await repo.upsertRoute(route, { who: 'leader', fence: { leaseKey, token: 7 } }),
    ).toMatchObject({ epoch: 3 });
    await expect(
      repo.upsertRoute(v4, { who: 'old-leader', fence: { leaseKey, token: 6 } }),
    ).rejects.toBeInstanceOf(FencedWriteError);
    expect((await repo.load())?.epoch).toBe(3);
    expect((await repo.auditLog()).map((e) => e.epoch)).toEqual([3, 2, 1]);
  });

  it('a routing table cache loads the table and follows a commit through pub/sub', async () => {
    const repo = new RoutingTableRepository(cluster.redis, { keyPrefix: PREFIX });
    const cache = new RoutingTableCache(
      new RoutingTableRepository(cluster.redis, { keyPrefix: PREFIX }),
      cluster.open('subscriber', 'int-routing-cluster-routes'),
      { refreshIntervalMs: 60_000 },
    );
    try {
      await cache.start();
      const before = cache.current().epoch;
      const v5 = { ...route, versions: [{ version: 5, weight: 100 }] };
      await repo.upsertRoute(v5, { who: 'test' });
      await pollUntil(() => (cache.current().epoch > before ? true : undefined), {
        timeoutMs: 10_000,
        what: 'the cache to see the commit',
      });
    } finally {
      await cache.close();
    }
  });
});
