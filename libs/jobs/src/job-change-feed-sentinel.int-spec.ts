import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { RedisSentinelHarness, redisCli } from '../../../test/support/redis-servers';
import { JobChangeFeed } from './job-change-feed';
import { JobKeys } from './job.keys';
import { JobRepository } from './job.repository';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });
/** Longer than any test: a wait that ends did so on a notice, not the fallback. */
const NEVER = 3_600_000;
const keys = new JobKeys(PREFIX);
let sentinel: RedisSentinelHarness;
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
let feed: JobChangeFeed;

beforeAll(async () => {
  sentinel = await RedisSentinelHarness.start();
  redis = createRedis('commands', { endpoint: sentinel.endpoint, name: 'int-feed-sentinel' });
  subscriber = createRedis('subscriber', {
    endpoint: sentinel.endpoint,
    name: 'int-feed-sentinel-changes',
  });
  for (const client of [redis, subscriber]) client.on('error', () => undefined);
  repo = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
  feed = new JobChangeFeed(subscriber, PREFIX, NEVER, 0);
});

afterAll(async () => {
  feed?.close();
  await Promise.all([subscriber, redis].filter(Boolean).map((c) => closeRedis(c)));
  await sentinel?.stop();
});

async function subscribersOn(port: number, jobId: string): Promise<number> {
  const reply = await redisCli(port, 'PUBSUB', 'SHARDNUMSUB', keys.changes(jobId));
  return Number(reply.split('\n')[1]);
}

function untilSubscribers(port: number, jobId: string, n: number): Promise<true> {
  return pollUntil(async () => ((await subscribersOn(port, jobId)) === n ? true : undefined), {
    timeoutMs: 20_000,
    what: `${n} subscriber(s) of ${jobId}'s channel on ${port}`,
  });
}

const writeOne = (jobId: string): Promise<boolean> =>
  repo.writeResults(
    jobId,
    0,
    [{ text: 'a' }],
    [{ kind: 'classification', label: 'pos', score: 1, scores: [] }],
  );

describe('JobChangeFeed with Redis Sentinel (primary, replica, 3 Sentinels)', () => {
  it('wakes a wait on a notice, and again from the promoted replica after a failover', async () => {
    const never = new AbortController().signal;
    const first = feed.arm('s1', never);
    await first.armed;
    expect(await subscribersOn(sentinel.primary.port, 's1')).toBe(1);
    await writeOne('s1');
    await first.changed;
    first.dispose();
    await untilSubscribers(sentinel.primary.port, 's1', 0);

    const wait = feed.arm('s1', never);
    await wait.armed;
    await sentinel.primary.kill('SIGKILL');
    await pollUntil(
      async () => ((await sentinel.primaryPort()) === sentinel.replica.port ? true : undefined),
      { timeoutMs: 30_000, what: 'the replica promoted' },
    );
    // ioredis reconnects to the new primary and subscribes the job's channel there again.
    await untilSubscribers(sentinel.replica.port, 's1', 1);
    await writeOne('s1');
    await wait.changed;
    wait.dispose();
    await untilSubscribers(sentinel.replica.port, 's1', 0);
  });
});
