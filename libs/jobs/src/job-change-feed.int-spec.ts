import { randomUUID } from 'node:crypto';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { JobChangeFeed } from './job-change-feed';
import { JobKeys } from './job.keys';
import { JobRepository } from './job.repository';
import type { JobRecord } from './job.types';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = randomUUID().slice(0, 8);
const PREFIX = uniquePrefix(__filename);
const SUBSCRIBER_NAME = `int-jobs-feed-changes-${RUN}`;
/** Longer than any test: a wait that ends did so on a notice (or an abort), not the fallback. */
const NEVER = 3_600_000;
const keys = new JobKeys(PREFIX);
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
/** Unsubscribes as soon as a job's last wait goes (no linger), to observe it. */
let feed: JobChangeFeed;

beforeAll(() => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'int-jobs-feed' });
  subscriber = createRedis('subscriber', { url: REDIS_URL, name: SUBSCRIBER_NAME });
  repo = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
  feed = new JobChangeFeed(subscriber, PREFIX, NEVER, 0);
});

afterAll(async () => {
  feed.close();
  await closeRedis(subscriber);
  const stored = await redis.keys(`${PREFIX}:*`);
  if (stored.length > 0) await redis.del(...stored);
  await closeRedis(redis);
});

const record = (id: string): JobRecord => ({
  id,
  tenant: 'acme',
  task: 'sentiment',
  model: 'sentiment-en',
  version: 1,
  pipeline: 'bert-wordpiece@1',
  state: 'queued',
  total: 1,
  chunkSize: 1,
  chunks: 1,
  processed: 0,
  succeeded: 0,
  failedItems: 0,
  createdAt: Date.now(),
});

/** Subscribers of a job's change channel, as Redis counts them (PUBSUB SHARDNUMSUB). */
async function subscribers(jobId: string): Promise<number> {
  const reply = (await redis.call('PUBSUB', 'SHARDNUMSUB', keys.changes(jobId))) as [
    string,
    number,
  ];
  return Number(reply[1]);
}

function untilSubscribers(jobId: string, n: number): Promise<true> {
  return pollUntil(async () => ((await subscribers(jobId)) === n ? true : undefined), {
    what: `${n} subscriber(s) of ${jobId}'s channel`,
  });
}

const writeOne = (jobId: string): Promise<boolean> =>
  repo.writeResults(
    jobId,
    0,
    [{ text: 'a' }],
    [{ kind: 'classification', label: 'pos', score: 1, scores: [] }],
  );

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
    await writeOne('f1');
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
    expect(await subscribers('s1')).toBe(1);
    a.dispose();
    await feed.ready();
    expect(await subscribers('s1')).toBe(1);
    b.dispose();
    await untilSubscribers('s1', 0);
    // Armed again: subscribed again, and notices wake it.
    const c = feed.arm('s1', never.signal);
    await c.armed;
    expect(await subscribers('s1')).toBe(1);
    await repo.commit(record('s1'));
    await repo.markRunning('s1', Date.now());
    await c.changed;
    c.dispose();
    await untilSubscribers('s1', 0);
  });

  it('keeps a channel subscribed for the linger after its last wait, for the next arm', async () => {
    const lingering = new JobChangeFeed(subscriber, PREFIX, NEVER, 300);
    const never = new AbortController();
    const first = lingering.arm('l1', never.signal);
    await first.armed;
    first.dispose();
    const again = lingering.arm('l1', never.signal);
    await again.armed;
    expect(await subscribers('l1')).toBe(1);
    await repo.commit(record('l1'));
    await repo.markRunning('l1', Date.now());
    await again.changed;
    again.dispose();
    expect(await subscribers('l1')).toBe(1);
    await untilSubscribers('l1', 0);
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
    await untilSubscribers('quiet', 0);
  });

  it('subscribes again after its connection is dropped, and notices wake waits again', async () => {
    const never = new AbortController();
    const wait = feed.arm('r1', never.signal);
    await wait.armed;
    const clients = (await redis.client('LIST')) as string;
    const line = clients.split('\n').find((l) => l.includes(` name=${SUBSCRIBER_NAME} `));
    const id = /^id=(\d+) /.exec(line ?? '')?.[1];
    expect(id).toBeDefined();
    const reconnected = new Promise((resolve) => subscriber.once('ready', resolve));
    await redis.client('KILL', 'ID', id ?? '');
    await reconnected;
    await untilSubscribers('r1', 1);
    await repo.commit(record('r1'));
    await repo.markRunning('r1', Date.now());
    await wait.changed;
    wait.dispose();
    await untilSubscribers('r1', 0);
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
