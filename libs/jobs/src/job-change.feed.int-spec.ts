import { randomUUID } from 'node:crypto';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { JobChangeFeed } from './job-change.feed';
import { JobRepository } from './job.repository';
import type { JobRecord } from './job.types';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test:jobs-feed:${randomUUID().slice(0, 8)}`;
/** Longer than any test: a wait that ends did so on a notice (or an abort), not the fallback. */
const NEVER = 3_600_000;
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
let feed: JobChangeFeed;

beforeAll(() => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'int-jobs-feed' });
  subscriber = createRedis('subscriber', { url: REDIS_URL, name: 'int-jobs-feed-changes' });
  repo = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
  feed = new JobChangeFeed(subscriber, PREFIX, NEVER);
});

afterAll(async () => {
  feed.close();
  await closeRedis(subscriber);
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
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

describe('JobChangeFeed (real Redis pub/sub)', () => {
  it("wakes a wait on the job's chunk write and state change, not on another job's", async () => {
    await repo.commit(record('f1'));
    await repo.commit(record('f2'));
    const never = new AbortController();
    await feed.ready();
    const other = feed.arm('f2', never.signal);
    let otherWoke = false;
    void other.changed.then(() => (otherWoke = true));
    const wait = feed.arm('f1', never.signal);
    await repo.writeResults(
      'f1',
      0,
      [{ text: 'a' }],
      [{ kind: 'classification', label: 'pos', score: 1, scores: [] }],
    );
    await wait.changed;
    wait.dispose();
    const next = feed.arm('f1', never.signal);
    await repo.finish('f1', 'completed', Date.now());
    await next.changed;
    next.dispose();
    expect(otherWoke).toBe(false);
    other.dispose();
    expect(feed.waiting()).toBe(0);
  });

  it('ends a wait when its stream is aborted', async () => {
    const abort = new AbortController();
    const wait = feed.arm('f3', abort.signal);
    abort.abort();
    await wait.changed;
    wait.dispose();
    // Armed after the stream was already told to stop (shutdown): no wait at all.
    const late = feed.arm('f3', abort.signal);
    await late.changed;
    late.dispose();
    expect(feed.waiting()).toBe(0);
  });
});
