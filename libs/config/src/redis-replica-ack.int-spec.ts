import { RedisClusterHarness, StandaloneRedis } from '../../../test/support/redis-servers';
import type { RedisEndpoint } from './redis-endpoint';
import { isStoreUnavailable } from './redis.errors';
import { closeRedis, createRedis, isCluster, type RedisClient } from './redis-factory';
import { ReplicaAckError, waitForReplicas } from './redis-replica-ack';

/** Waiting for replicas (Redis WAIT) on the servers this file starts, never the shared one. */
describe('waitForReplicas', () => {
  const opened: RedisClient[] = [];
  const open = (endpoint: RedisEndpoint) => {
    const client = createRedis('commands', { endpoint, name: 'replica-ack-int' });
    client.on('error', () => undefined);
    opened.push(client);
    return client;
  };

  afterAll(async () => {
    await Promise.all(opened.map((c) => closeRedis(c)));
  });

  describe('a standalone Redis without replicas', () => {
    let redis: StandaloneRedis;
    beforeAll(async () => {
      redis = await StandaloneRedis.start();
    });
    afterAll(() => redis.stop());

    it('acknowledges on the primary alone when no replica is connected (as after a failover)', async () => {
      const client = open(redis.endpoint);
      await client.set('int:ack:job', '1');
      await expect(
        waitForReplicas(client, ['int:ack:job'], { replicas: 0, timeoutMs: 50 }),
      ).resolves.toBeUndefined();
      // No replica could lose the write, and none can acknowledge it: no wait, no refusal.
      await expect(
        waitForReplicas(client, ['int:ack:job'], { replicas: 1, timeoutMs: 100 }),
      ).resolves.toBeUndefined();
    });
  });

  describe('a Redis Cluster with a replica per primary', () => {
    let cluster: RedisClusterHarness;
    beforeAll(async () => {
      cluster = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
    }, 60_000);
    afterAll(() => cluster.stop());

    it('waits on every primary that owns one of the keys, and the replicas hold the writes', async () => {
      const client = open(cluster.endpoint);
      // Two hash tags that land on different primaries (slots 0-5460 / 5461-10922 / 10923-16383).
      const keys = ['int:ack:{job:a}:meta', 'int:ack:{bull}'];
      const slots = await Promise.all(
        keys.map(async (k) => Number(await client.cluster('KEYSLOT', k))),
      );
      expect(new Set(slots.map((s) => Math.floor(s / 5461))).size).toBe(2);
      for (const key of keys) await client.set(key, 'stored');
      await expect(
        waitForReplicas(client, keys, { replicas: 1, timeoutMs: 5000 }),
      ).resolves.toBeUndefined();
      // Each key is on a replica now: read it there (READONLY lets a replica answer its slots).
      for (const key of keys) {
        const readers = await Promise.all(
          cluster.nodes.map(async (n) => {
            const node = open({
              mode: 'standalone',
              url: `redis://127.0.0.1:${n.port}`,
              tls: false,
            });
            const role = String(((await node.call('ROLE')) as unknown[])[0]);
            if (role !== 'slave') return undefined;
            await node.call('READONLY');
            return node.get(key).catch(() => undefined);
          }),
        );
        expect([key, readers.filter((v) => v === 'stored').length]).toEqual([key, 1]);
      }
      // Three replicas are asked, one is connected: the wait is for that one.
      await expect(
        waitForReplicas(client, keys, { replicas: 3, timeoutMs: 5000 }),
      ).resolves.toBeUndefined();
      // A connected replica that does not answer (frozen) leaves the write unconfirmed.
      if (!isCluster(client)) throw new Error('not a cluster client');
      const owner = Number(client.slots[slots[0]!]?.[0]?.split(':')[1]);
      const replicaPort = Number(
        /slave\d+:ip=[^,]+,port=(\d+)/.exec(
          await open({ mode: 'standalone', url: `redis://127.0.0.1:${owner}`, tls: false }).info(
            'replication',
          ),
        )?.[1],
      );
      const replica = cluster.nodes.find((n) => n.port === replicaPort)!;
      await client.set(keys[0]!, 'again');
      replica.pause();
      try {
        const refused = await waitForReplicas(client, [keys[0]!], {
          replicas: 1,
          timeoutMs: 200,
        }).catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(ReplicaAckError);
        expect((refused as Error).message).toBe(
          'only 0 of 1 replica(s) acknowledged the write within 200 ms',
        );
        expect(isStoreUnavailable(refused)).toBe(true);
      } finally {
        replica.resume();
      }
    });
  });
});
