import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { JobChangeFeed, type ArmedWait } from './job-change-feed';
import type { JobRepository } from './job.repository';
import { oneItemJob as record, writeOneResult } from './testing/job-fixtures';
import { ChangeChannelProbe } from './testing/job-change-probe';
import { NEVER_MS, closeJobStore, openFeedRig } from './testing/job-store';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../test/support/redis-prefix';

const RUN = randomUUID().slice(0, 8);
const PREFIX = uniquePrefix(__filename);
const NAME = `int-jobs-feed-${RUN}`;
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
/** Unsubscribes as soon as a job's last wait goes (no linger), to observe it. */
let feed: JobChangeFeed;
/** Subscribers of a job's change channel, as the shared Redis counts them. */
const channel = new ChangeChannelProbe(
  PREFIX,
  (command, ...args) => redis.call(command, ...args),
  pollUntil,
);

beforeAll(() => {
  ({ redis, subscriber, repo, feed } = openFeedRig(PREFIX, { url: SHARED_REDIS_URL }, NAME));
});

afterAll(async () => {
  await closeJobStore({ feed, subscriber, redis });
  await dropPrefix(PREFIX);
});

/** Creates the job and starts it: the state change's notice wakes `wait`, which then goes. */
async function wakeByStart(wait: ArmedWait, jobId: string): Promise<void> {
  await repo.commit(record(jobId));
  await repo.markRunning(jobId, Date.now());
  await wait.changed;
  wait.dispose();
}

describe('JobChangeFeed (real Redis sharded pub/sub)', () => {
  it("wakes a wait on the job's chunk write and state change, not on another job's", async () => {
    await repo.commit(record('f1'));
    await repo.commit(record('f2'));
    const never = new AbortController();
    const other = feed.arm('f2', never.signal);
    let otherWoke = false;
    void other.changed.then(() => (otherWoke = true));
    const wait = feed.arm('f1', never.signal);
    await Promise.all([wait.armed, other.armed]);
    await writeOneResult(repo, 'f1');
    await wait.changed;
    wait.dispose();
    const next = feed.arm('f1', never.signal);
    await next.armed;
    await repo.finish('f1', 'completed', Date.now());
    await next.changed;
    next.dispose();
    expect(otherWoke).toBe(false);
    other.dispose();
    expect(feed.waiting()).toBe(0);
  });

  it("subscribes a job's channel once while waits hold it and unsubscribes when the last goes", async () => {
    const never = new AbortController();
    const a = feed.arm('s1', never.signal);
    const b = feed.arm('s1', never.signal);
    await Promise.all([a.armed, b.armed]);
    expect(await channel.subscribers('s1')).toBe(1);
    a.dispose();
    await feed.ready();
    expect(await channel.subscribers('s1')).toBe(1);
    b.dispose();
    await channel.untilSubscribers('s1', 0);
    // Armed again: subscribed again, and notices wake it.
    const c = feed.arm('s1', never.signal);
    await c.armed;
    expect(await channel.subscribers('s1')).toBe(1);
    await wakeByStart(c, 's1');
    await channel.untilSubscribers('s1', 0);
  });

  it('keeps a channel subscribed for the linger after its last wait, for the next arm', async () => {
    const lingering = new JobChangeFeed(subscriber, PREFIX, NEVER_MS, 300);
    const never = new AbortController();
    const first = lingering.arm('l1', never.signal);
    await first.armed;
    first.dispose();
    const again = lingering.arm('l1', never.signal);
    await again.armed;
    expect(await channel.subscribers('l1')).toBe(1);
    await wakeByStart(again, 'l1');
    expect(await channel.subscribers('l1')).toBe(1);
    await channel.untilSubscribers('l1', 0);
    lingering.close();
  });

  it('ends a wait after the fallback interval when no notice comes', async () => {
    const polling = new JobChangeFeed(subscriber, PREFIX, 150, 0);
    const never = new AbortController();
    const wait = polling.arm('quiet', never.signal);
    await wait.armed;
    let woke = false;
    void wait.changed.then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).toBe(false);
    await wait.changed;
    wait.dispose();
    // Without a subscriber the feed only polls: armed at once, woken by the fallback.
    const pollOnly = new JobChangeFeed(undefined, PREFIX, 50);
    const bare = pollOnly.arm('quiet', never.signal);
    await bare.armed;
    await bare.changed;
    bare.dispose();
    polling.close();
    await channel.untilSubscribers('quiet', 0);
  });

  it('subscribes again after its connection is dropped, and notices wake waits again', async () => {
    const never = new AbortController();
    const wait = feed.arm('r1', never.signal);
    await wait.armed;
    const clients = (await redis.client('LIST')) as string;
    const line = clients.split('\n').find((l) => l.includes(` name=${NAME}-changes `));
    const id = /^id=(\d+) /.exec(line ?? '')?.[1];
    expect(id).toBeDefined();
    const reconnected = new Promise((resolve) => subscriber.once('ready', resolve));
    await redis.client('KILL', 'ID', id ?? '');
    await reconnected;
    await channel.untilSubscribers('r1', 1);
    await wakeByStart(wait, 'r1');
    await channel.untilSubscribers('r1', 0);
  });

  it('ends a wait when its stream is aborted', async () => {
    const abort = new AbortController();
    const wait = feed.arm('f3', abort.signal);
    abort.abort();
    await wait.changed;
    await wait.armed;
    wait.dispose();
    // Armed after the stream was already told to stop (shutdown): no wait at all.
    const late = feed.arm('f3', abort.signal);
    await late.changed;
    late.dispose();
    expect(feed.waiting()).toBe(0);
  });
});
