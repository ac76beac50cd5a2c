/**
 * The routing table's scripts, MULTIs and pipelines on a real Redis Cluster (3 primaries): a
 * script or MULTI whose keys span slots fails with CROSSSLOT, a pipeline spanning primaries
 * with ioredis's "same slots allocation group" error, so each call here passing means its keys
 * share the `{routes}` hash tag or it addresses one key.
 */
import { createHash } from 'node:crypto';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { RedisClusterHarness } from '../../../test/support/redis-servers';
import { RoutingTableCache } from './routing-table-cache';
import { RoutingTableRepository } from './routing-table.repository';
import { EpochConflictError, FencedWriteError } from './routing.errors';
import { routingKeys } from './routing.keys';
import type { Route, RoutingTableData } from './routing.types';
import { uniquePrefix } from '../../../test/support/redis-prefix';

/** The stored form of a fixture key (sha256 hex, as the tenancy lib hashes keys). */
function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });

let cluster: RedisClusterHarness;
let redis: RedisClient;
const opened: RedisClient[] = [];

beforeAll(async () => {
  cluster = await RedisClusterHarness.start();
  redis = open('commands', 'int-routing-cluster');
});

afterAll(async () => {
  await Promise.all(opened.map((c) => closeRedis(c)));
  await cluster?.stop();
});

function open(role: 'commands' | 'subscriber', name: string): RedisClient {
  const client = createRedis(role, { endpoint: cluster.endpoint, name });
  client.on('error', () => undefined);
  opened.push(client);
  return client;
}

const route: Route = {
  tenant: '*',
  task: 'intent',
  model: 'intent-zh',
  versions: [{ version: 3, weight: 100 }],
};
const seed: RoutingTableData = {
  tenants: [
    {
      name: 'acme',
      keySha256: [sha256Hex('acme-key')],
      allowedTasks: ['*'],
      rateLimit: { requestsPerSecond: 10, burst: 20 },
      maxInFlight: 4,
    },
  ],
  routes: [route],
};

describe('routing on a Redis Cluster', () => {
  it('seeds, commits with compare-and-set on the epoch and the lease fence, and audits', async () => {
    const repo = new RoutingTableRepository(redis, { keyPrefix: PREFIX });
    expect(await repo.seedIfAbsent(seed, 'test')).toMatchObject({ seeded: true, epoch: 1 });
    const v4 = { ...route, versions: [{ version: 4, weight: 100 }] };
    expect(await repo.upsertRoute(v4, { who: 'test', expectedEpoch: 1 })).toMatchObject({
      epoch: 2,
    });
    await expect(repo.upsertRoute(route, { who: 'test', expectedEpoch: 1 })).rejects.toBeInstanceOf(
      EpochConflictError,
    );
    const leaseKey = routingKeys(PREFIX).leaderLease;
    await redis.set(leaseKey, '7 coordinator-a', 'PX', 60_000);
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
    const repo = new RoutingTableRepository(redis, { keyPrefix: PREFIX });
    const cache = new RoutingTableCache(
      new RoutingTableRepository(redis, { keyPrefix: PREFIX }),
      open('subscriber', 'int-routing-cluster-routes'),
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
