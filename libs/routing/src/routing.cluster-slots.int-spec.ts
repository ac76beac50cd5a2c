/**
 * The routing lib's scripts, MULTIs and pipelines on a real Redis Cluster (3 primaries): a
 * script or MULTI whose keys span slots fails with CROSSSLOT, a pipeline spanning primaries
 * with ioredis's "same slots allocation group" error, so each call here passing means its keys
 * share a hash tag (`{routes}`, `{routers}`, the signal buckets') or it addresses one key.
 */
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { RedisClusterHarness } from '../../../test/support/redis-servers';
import { sha256Hex } from './api-key';
import { RedisTrafficSignalSource } from './redis-traffic-signal.source';
import { RouterHeartbeatRepository } from './router-heartbeat.repository';
import { RoutingTableCache } from './routing-table.cache';
import { RoutingTableRepository } from './routing-table.repository';
import { EpochConflictError, FencedWriteError } from './routing.errors';
import { routingKeys } from './routing.keys';
import type { Route, RoutingTableData } from './routing.types';
import { TenantRateLimiter } from './tenant-rate-limiter';
import { TrafficSignalRecorder } from './traffic-signal.recorder';

const PREFIX = `int:routing-cluster:${process.pid}`;

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

  it('publishes and reads router heartbeats under {routers}', async () => {
    const heartbeats = new RouterHeartbeatRepository(redis, { keyPrefix: PREFIX });
    for (const id of ['router-a', 'router-b', 'router-c']) {
      await heartbeats.publish(
        { routerId: id, epoch: 3, at: Date.now(), routable: [], unroutable: [], inFlight: [] },
        30,
      );
    }
    expect((await heartbeats.readLive()).map((h) => h.routerId)).toEqual([
      'router-a',
      'router-b',
      'router-c',
    ]);
  });

  it('rate-limits tenants through the shared window script', async () => {
    const limiter = new TenantRateLimiter(redis, { keyPrefix: PREFIX });
    const tight = { name: 'globex', rateLimit: { requestsPerSecond: 2, burst: 3 } };
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(tight));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });

  it('records traffic signals in buckets and reads a window of them back', async () => {
    const BUCKET = 5000;
    const T0 = 1_800_000_000_000;
    let now = T0;
    const recorder = new TrafficSignalRecorder(redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
      now: () => now,
    });
    const source = new RedisTrafficSignalSource(redis, { keyPrefix: PREFIX, bucketMs: BUCKET });
    const sample = { task: 'intent', model: 'intent-zh', version: 3, outcome: 'ok', latencyMs: 4 };
    for (let i = 0; i < 6; i++) {
      recorder.record(sample);
      now += BUCKET;
    }
    await recorder.close();
    const read = await source.read({ task: 'intent', fromMs: T0, toMs: T0 + 6 * BUCKET });
    expect(read.requests).toBe(6);
  });
});
