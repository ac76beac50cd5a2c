import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { JobKeys } from './job.keys';
import { JobRepository } from './job.repository';
import { JobUploadWriter } from './job-upload-writer';
import type { ItemResult } from './job.types';
import { EmptyJobError, JobInputError } from './jobs.errors';
import { classified, jobRecord as record } from './testing/job-fixtures';
import { jobStoreOptions, openJobStore } from './testing/job-store';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename);
let redis: RedisClient;
let repo: JobRepository;

beforeAll(() => {
  ({ redis, repo } = openJobStore(PREFIX, { url: SHARED_REDIS_URL }, 'test-job.repository'));
});

afterAll(async () => {
  await closeRedis(redis);
  await dropPrefix(PREFIX);
});

const ok = classified();
const bad: ItemResult = { kind: 'error', error: { code: 'TEXT_TOO_LONG', message: 'long' } };

describe('JobRepository (real Redis)', () => {
  it('stores an upload in chunks and reads each chunk back', async () => {
    const writer = new JobUploadWriter(repo, 2);
    const summary = await writer.write('up1', [
      { text: 'a' },
      { text: 'b', textPair: 'c' },
      { text: 'd', id: 9 },
    ]);
    expect(summary).toEqual({ total: 3, chunks: 2, firstPair: 1 });
    expect(await repo.readItems('up1', 0)).toEqual([{ text: 'a' }, { text: 'b', textPair: 'c' }]);
    expect(await repo.readItems('up1', 1)).toEqual([{ text: 'd', id: 9 }]);
    const ttl = await redis.ttl(`${PREFIX}:{job:up1}:in:0`);
    expect(ttl).toBeGreaterThan(3000);
  });

  it('leaves nothing behind when an upload fails part way or is empty', async () => {
    const writer = new JobUploadWriter(repo, 2);
    async function* items() {
      yield { text: 'a' };
      yield { text: 'b' };
      yield { text: 'c' };
      throw new JobInputError('line 4: not valid JSON', 4);
    }
    await expect(writer.write('up2', items())).rejects.toThrow('line 4');
    expect(await redis.keys(`${PREFIX}:{job:up2}:*`)).toEqual([]);
    await expect(writer.write('up3', [])).rejects.toBeInstanceOf(EmptyJobError);
  });

  it('counts a retried chunk once: the second write replaces the first', async () => {
    await repo.commit(record('r1'));
    const items = [{ text: 'a' }, { text: 'b' }];
    expect(await repo.writeResults('r1', 0, items, [ok, bad])).toBe(true);
    expect(await repo.writeResults('r1', 0, items, [ok, ok])).toBe(false);
    expect(await repo.writeResults('r1', 1, [{ text: 'c' }], [ok])).toBe(true);
    const r = await repo.get('r1');
    expect(r).toMatchObject({ processed: 3, succeeded: 3, failedItems: 0 });
    expect((await repo.readResults('r1', 0))?.results).toEqual([ok, ok]);
  });

  it('with a replica acknowledgement and no replica connected, acknowledges on the primary alone', async () => {
    // This Redis has no replica (as a promoted primary right after a failover): no wait.
    const acked = new JobRepository(
      redis,
      jobStoreOptions(PREFIX, { replicaAck: { replicas: 1, timeoutMs: 50 } }),
    );
    await acked.commit(record('w1'));
    const items = [{ text: 'a' }];
    expect(await acked.writeResults('w1', 0, items, [ok])).toBe(true);
    expect((await acked.readResults('w1', 0))?.results).toEqual([ok]);
    expect(await repo.get('w1')).toMatchObject({ processed: 1, succeeded: 1 });
  });

  it('moves through states only along allowed transitions', async () => {
    await repo.commit(record('s1'));
    expect(await repo.markWaiting('s1', 'intent-zh v2 has no ready backend')).toBe(
      'waiting_for_version',
    );
    expect((await repo.get('s1'))?.reason).toBe('intent-zh v2 has no ready backend');
    expect(await repo.markRunning('s1', 1000)).toBe('running');
    expect(await repo.markRunning('s1', 2000)).toBe('running');
    expect((await repo.get('s1'))?.startedAt).toBe(1000);
    expect((await repo.get('s1'))?.reason).toBeUndefined();
    expect(await repo.finish('s1', 'cancelled', 3000)).toBe('cancelled');
    // A finished job never goes back, and the first end wins.
    expect(await repo.markRunning('s1', 4000)).toBe('cancelled');
    expect(await repo.finish('s1', 'completed', 5000)).toBe('cancelled');
    expect((await repo.get('s1'))?.finishedAt).toBe(3000);
    expect(await repo.markRunning('missing', 1)).toBeUndefined();
  });

  it("publishes a sharded notice on the job's channel per chunk write and move, none for a refused move", async () => {
    await repo.commit(record('n1'));
    const channel = new JobKeys(PREFIX).changes('n1');
    const subscriber = createRedis('subscriber', {
      url: SHARED_REDIS_URL,
      name: 'test-job.notices',
    });
    const notices: string[] = [];
    const marker = new Promise<void>((resolve) =>
      subscriber.on('smessage', (from: string, message: string) => {
        if (from !== channel) return;
        if (message === 'end') resolve();
        else notices.push(message);
      }),
    );
    try {
      await subscriber.ssubscribe(channel);
      await repo.writeResults('n1', 0, [{ text: 'a' }], [ok]);
      await repo.markRunning('n1', 1000);
      await repo.finish('n1', 'completed', 2000);
      await repo.finish('n1', 'cancelled', 3000);
      await repo.markRunning('n1', 4000);
      // Notices of one channel arrive in order: once the marker is in, every notice is.
      await redis.spublish(channel, 'end');
      await marker;
      expect(notices).toEqual(['1', '1', '1']);
    } finally {
      await closeRedis(subscriber);
    }
  });

  it('frees the quota and the inputs of a finished job', async () => {
    expect((await repo.quota.reserveJob('quota-t', 'q1', 1)).granted).toBe(true);
    const reserved: number[] = [];
    const writer = new JobUploadWriter(repo, 2, async (n) => {
      reserved.push(n);
      expect((await repo.quota.reserveItems('quota-t', 'q1', n, 10)).granted).toBe(true);
    });
    const summary = await writer.write('q1', [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    expect(reserved).toEqual([2, 1]);
    await repo.commit(record('q1', { tenant: 'quota-t', chunks: summary.chunks }));
    expect(await repo.quota.held('quota-t')).toEqual({ jobs: 1, items: 3 });
    expect(await repo.isOver('q1')).toBe(false);
    await repo.finish('q1', 'completed', Date.now());
    expect(await repo.quota.held('quota-t')).toEqual({ jobs: 0, items: 0 });
    expect(await repo.isOver('q1')).toBe(true);
    expect(await repo.readItems('q1', 0)).toBeUndefined();
  });

  it('stores nothing of an upload whose chunk the quota refuses', async () => {
    const writer = new JobUploadWriter(repo, 2, (n) =>
      n > 1 ? Promise.reject(new Error('over quota')) : Promise.resolve(),
    );
    await expect(writer.write('q2', [{ text: 'a' }, { text: 'b' }])).rejects.toThrow('over quota');
    expect(await redis.keys(`${PREFIX}:{job:q2}:*`)).toEqual([]);
  });

  it('lists a tenant’s jobs newest first, filtered by state; admin sees every tenant', async () => {
    const now = Date.now();
    await repo.commit(record('l1', { tenant: 'lister', createdAt: now - 2 }));
    await repo.commit(record('l2', { tenant: 'lister', createdAt: now - 1 }));
    await repo.commit(record('l3', { tenant: 'other', createdAt: now }));
    await repo.finish('l1', 'completed', now);
    expect((await repo.list({ tenant: 'lister', limit: 10 })).map((r) => r.id)).toEqual([
      'l2',
      'l1',
    ]);
    expect(
      (await repo.list({ tenant: 'lister', state: 'completed', limit: 10 })).map((r) => r.id),
    ).toEqual(['l1']);
    const all = (await repo.list({ limit: 100 })).map((r) => r.id);
    expect(all).toEqual(expect.arrayContaining(['l1', 'l2', 'l3']));
  });

  it('binds an idempotency key to the first job only', async () => {
    expect(await repo.idempotentJob('acme', 'k1')).toBeUndefined();
    expect(await repo.claimIdempotency('acme', 'k1', 'first')).toBe('first');
    expect(await repo.claimIdempotency('acme', 'k1', 'second')).toBe('first');
    expect(await repo.idempotentJob('acme', 'k1')).toBe('first');
    // Keys are per tenant.
    expect(await repo.idempotentJob('globex', 'k1')).toBeUndefined();
  });
});
