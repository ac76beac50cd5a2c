import { bullPrefix } from '@mesh/jobs';
import { Queue, Worker } from 'bullmq';
import {
  RedisClusterHarness,
  RedisSentinelHarness,
  StandaloneRedis,
  redisCli,
} from '../../../test/support/redis-servers';
import { pollUntil } from '../../../test/support/poll';
import { checkRedisServer } from './redis.check';
import type { RedisEndpoint } from './redis-endpoint';
import {
  closeRedis,
  createRedis,
  isCluster,
  primariesOf,
  type RedisClient,
  type RedisRole,
} from './redis-factory';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });

/** Every role of the factory against one topology, opened and closed per test. */
function describeMode(
  mode: string,
  start: () => Promise<{ endpoint: RedisEndpoint; stop(): Promise<void> }>,
) {
  describe(mode, () => {
    let topology: { endpoint: RedisEndpoint; stop(): Promise<void> };
    let opened: RedisClient[] = [];
    const open = (role: RedisRole, name: string): RedisClient => {
      const client = createRedis(role, { endpoint: topology.endpoint, name });
      client.on('error', () => undefined);
      opened.push(client);
      return client;
    };

    beforeAll(async () => {
      topology = await start();
    });
    afterEach(async () => {
      await Promise.all(opened.map((c) => closeRedis(c)));
      opened = [];
    });
    afterAll(async () => {
      await topology?.stop();
    });

    it('commands: writes, reads, a script and a MULTI on one hash tag', async () => {
      const redis = open('commands', `modes-${mode}-commands`);
      expect(isCluster(redis)).toBe(mode === 'cluster');
      const a = `${PREFIX}:{t}:a`;
      const b = `${PREFIX}:{t}:b`;
      await redis.set(a, '1');
      expect(await redis.get(a)).toBe('1');
      expect(await redis.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", 1, a, '2')).toBe(3);
      const replies = await redis.multi().set(b, 'x').get(a).exec();
      expect(replies?.map(([, v]) => v)).toEqual(['OK', '3']);
      expect(await redis.client('GETNAME')).toBe(`modes-${mode}-commands`);
    });

    it('subscriber: receives a published message and a sharded one', async () => {
      const redis = open('commands', `modes-${mode}-publisher`);
      const subscriber = open('subscriber', `modes-${mode}-subscriber`);
      const channel = `${PREFIX}:{routes}:changed`;
      const shard = `${PREFIX}:{job:1}:changes`;
      const received = new Promise<string>((resolve) =>
        subscriber.on(
          'message',
          (ch: string, message: string) => ch === channel && resolve(message),
        ),
      );
      const sharded = new Promise<string>((resolve) =>
        subscriber.on(
          'smessage',
          (ch: string, message: string) => ch === shard && resolve(message),
        ),
      );
      await subscriber.subscribe(channel);
      await subscriber.ssubscribe(shard);
      await redis.publish(channel, 'epoch 2');
      await redis.spublish(shard, 'chunk 3');
      expect(await received).toBe('epoch 2');
      expect(await sharded).toBe('chunk 3');
    });

    it('blocking: BLPOP returns what another connection pushes', async () => {
      const redis = open('commands', `modes-${mode}-pusher`);
      const blocking = open('blocking', `modes-${mode}-blocked`);
      const list = `${PREFIX}:{q}:list`;
      const popped = blocking.blpop(list, 10);
      // Push only once the BLPOP is parked on its node, so the blocking path is what answers.
      await pollUntil(
        async () => {
          // A cluster client knows its nodes once it has connected, so ask on every poll.
          await redis.ping();
          for (const node of isCluster(redis) ? redis.nodes('master') : [redis]) {
            const clients = (await node.client('LIST')) as string;
            const line = clients.split('\n').find((l) => l.includes(`name=modes-${mode}-blocked `));
            if (line?.includes('cmd=blpop')) return true;
          }
          return undefined;
        },
        { timeoutMs: 10_000, what: 'the BLPOP to block' },
      );
      await redis.rpush(list, 'item');
      expect(await popped).toEqual([list, 'item']);
    });

    it('bullmq: a Worker processes a Queue job under the hash-tagged prefix', async () => {
      const prefix = bullPrefix(PREFIX);
      const name = `modes-${mode}`;
      const queue = new Queue(name, { connection: open('bullmq', `modes-${mode}-queue`), prefix });
      const worker = new Worker(name, async (job) => (job.data as { n: number }).n * 2, {
        connection: open('bullmq', `modes-${mode}-worker`),
        prefix,
      });
      const completed = new Promise<unknown>((resolve, reject) => {
        worker.on('completed', (_job, value) => resolve(value));
        worker.on('failed', (_job, err) => reject(err));
      });
      try {
        const job = await queue.add('double', { n: 21 });
        expect(await completed).toBe(42);
        expect(await queue.getJobState(job.id as string)).toBe('completed');
      } finally {
        await worker.close();
        await queue.obliterate({ force: true });
        await queue.close();
      }
    });

    it('probe: connects on connect(), answers, and closeRedis ends it', async () => {
      const probe = open('probe', `modes-${mode}-probe`);
      expect(probe.status).toBe('wait');
      await probe.connect();
      expect(await probe.ping()).toBe('PONG');
      await closeRedis(probe);
      expect(probe.status).toBe('end');
    });

    it('settings check: every primary, noeviction passes, allkeys-lru is refused by name', async () => {
      const redis = open('commands', `modes-${mode}-settings`);
      await redis.ping();
      const primaries = await primariesOf(redis);
      expect(primaries).toHaveLength(mode === 'cluster' ? 3 : 1);
      const clean = await checkRedisServer(redis);
      expect(clean.problems).toEqual([]);
      // The test servers keep nothing on disk.
      expect(clean.unpersisted).toHaveLength(primaries.length);
      const [first] = primaries;
      await first?.config('SET', 'maxmemory-policy', 'allkeys-lru');
      try {
        const refused = await checkRedisServer(redis);
        expect(refused.problems).toHaveLength(1);
        expect(refused.problems[0]).toMatch(
          /^127\.0\.0\.1:\d+: maxmemory-policy is allkeys-lru, must be noeviction/,
        );
      } finally {
        await first?.config('SET', 'maxmemory-policy', 'noeviction');
      }
      await first?.config('SET', 'save', '3600 1');
      try {
        expect((await checkRedisServer(redis)).unpersisted).toHaveLength(primaries.length - 1);
      } finally {
        await first?.config('SET', 'save', '');
      }
    });

    if (mode === 'sentinel') {
      it('follows a planned failover: writes reach the promoted replica, the old primary demoted', async () => {
        const sentinel = topology as RedisSentinelHarness;
        const redis = open('commands', 'modes-sentinel-switch');
        await redis.set(`${PREFIX}:{p}:before`, '1');
        const [first] = sentinel.sentinels;
        await redisCli(first?.port as number, 'SENTINEL', 'FAILOVER', sentinel.masterName);
        await pollUntil(
          async () => ((await sentinel.primaryPort()) === sentinel.replica.port ? true : undefined),
          { timeoutMs: 20_000, what: 'the Sentinels to name the replica as primary' },
        );
        await pollUntil(
          async () =>
            (await redisCli(sentinel.primary.port, 'ROLE')).startsWith('slave') ? true : undefined,
          { timeoutMs: 20_000, what: 'the old primary to become a replica' },
        );
        await redis.set(`${PREFIX}:{p}:after`, '2');
        expect(await redisCli(sentinel.replica.port, 'GET', `${PREFIX}:{p}:after`)).toBe('2');
      }, 60_000);

      it('follows a failover: commands work again once the replica is promoted', async () => {
        const sentinel = topology as RedisSentinelHarness;
        const redis = open('commands', 'modes-sentinel-failover');
        const subscriber = open('subscriber', 'modes-sentinel-failover-sub');
        const channel = `${PREFIX}:{routes}:changed`;
        const received: string[] = [];
        subscriber.on('message', (_ch: string, message: string) => received.push(message));
        await subscriber.subscribe(channel);
        await sentinel.waitUntilMonitored();
        const { primary, replica } = await sentinel.roles();
        await redis.set(`${PREFIX}:{f}:before`, '1');
        // Replication is asynchronous: without the replica's acknowledgement a write just
        // before the primary dies may be lost by Redis itself, which is not what this tests.
        expect(await redis.wait(1, 10_000)).toBe(1);
        await primary.kill('SIGKILL');
        // Queued while the primary is gone; answered by the promoted replica.
        await redis.set(`${PREFIX}:{f}:after`, '2');
        // The client found the new primary through whichever Sentinel knew first; the one asked
        // here may still name the dead primary until the Sentinels' views converge.
        await pollUntil(
          async () => ((await sentinel.primaryPort()) === replica.port ? true : undefined),
          { timeoutMs: 20_000, what: 'the Sentinels to name the promoted replica as primary' },
        );
        expect(await redis.get(`${PREFIX}:{f}:after`)).toBe('2');
        expect(await redis.get(`${PREFIX}:{f}:before`)).toBe('1');
        // The subscriber re-subscribed on the new primary by itself.
        await pollUntil(
          async () => {
            // Published again on every poll until one arrives through the re-subscription.
            if (received.includes('after failover')) return true;
            await redis.publish(channel, 'after failover');
            return undefined;
          },
          {
            timeoutMs: 20_000,
            intervalMs: 200,
            what: 'a message through the re-subscribed subscriber',
          },
        );
      }, 60_000);
    }
  });
}

describeMode('standalone', () => StandaloneRedis.start());
describeMode('cluster', () => RedisClusterHarness.start());
describeMode('sentinel', () => RedisSentinelHarness.start());
