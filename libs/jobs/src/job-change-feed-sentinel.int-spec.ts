import type { RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { RedisSentinelHarness, redisCli } from '../../../test/support/redis-servers';
import type { JobChangeFeed } from './job-change-feed';
import type { JobRepository } from './job.repository';
import { writeOneResult } from './testing/job-fixtures';
import { nodeProbes } from './testing/job-change-probe';
import { closeJobStore, openFeedRig } from './testing/job-store';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });
/** Subscribers of a job's channel on one node, by port. */
const on = nodeProbes(PREFIX, redisCli, pollUntil);
let sentinel: RedisSentinelHarness;
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
let feed: JobChangeFeed;

beforeAll(async () => {
  sentinel = await RedisSentinelHarness.start();
  ({ redis, subscriber, repo, feed } = openFeedRig(
    PREFIX,
    { endpoint: sentinel.endpoint },
    'int-feed-sentinel',
    { quiet: true },
  ));
});

afterAll(async () => {
  await closeJobStore({ feed, subscriber, redis });
  await sentinel?.stop();
});

describe('JobChangeFeed with Redis Sentinel (primary, replica, 3 Sentinels)', () => {
  it('wakes a wait on a notice, and again from the promoted replica after a failover', async () => {
    const never = new AbortController().signal;
    const first = feed.arm('s1', never);
    await first.armed;
    expect(await on(sentinel.primary.port).subscribers('s1')).toBe(1);
    await writeOneResult(repo, 's1');
    await first.changed;
    first.dispose();
    await on(sentinel.primary.port).untilSubscribers('s1', 0);

    const wait = feed.arm('s1', never);
    await wait.armed;
    await sentinel.primary.kill('SIGKILL');
    await pollUntil(
      async () => ((await sentinel.primaryPort()) === sentinel.replica.port ? true : undefined),
      { timeoutMs: 30_000, what: 'the replica promoted' },
    );
    // ioredis reconnects to the new primary and subscribes the job's channel there again.
    await on(sentinel.replica.port).untilSubscribers('s1', 1);
    await writeOneResult(repo, 's1');
    await wait.changed;
    wait.dispose();
    await on(sentinel.replica.port).untilSubscribers('s1', 0);
  });
});
