/**
 * The job store's scripts, MULTIs and pipelines on a real Redis Cluster (3 primaries): a
 * script or MULTI whose keys span slots fails with CROSSSLOT, a pipeline spanning primaries
 * with ioredis's "same slots allocation group" error, so each call here passing means its keys
 * share a hash tag (`{job:<id>}`, `{jobs}`, `{bull}`) or it addresses one key at a time.
 */
import type { RedisClient } from '@mesh/config';
import { Queue } from 'bullmq';
import { RedisClusterHarness } from '../../../test/support/redis-servers';
import { JobFlowProducer } from './job-flow-producer';
import { JobPinReader } from './job-pin-reader';
import { CHUNK_QUEUE, JOB_QUEUE, bullPrefix } from './job-queue-contracts';
import type { JobRepository } from './job.repository';
import { JobUploadWriter } from './job-upload-writer';
import { classified, jobRecord as record } from './testing/job-fixtures';
import { closeJobStore, openJobStore } from './testing/job-store';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });
const ok = classified();

let cluster: RedisClusterHarness;
let redis: RedisClient;
let repo: JobRepository;

beforeAll(async () => {
  cluster = await RedisClusterHarness.start();
  ({ redis, repo } = openJobStore(PREFIX, { endpoint: cluster.endpoint }, 'int-jobs-cluster'));
});

afterAll(async () => {
  await closeJobStore({ redis });
  await cluster?.stop();
});

/** Job ids whose `{job:<id>}` slots are served by different primaries. */
const IDS = Array.from({ length: 12 }, (_, i) => `job-${i}`);

describe('job store on a Redis Cluster', () => {
  it('uploads, commits, writes results and moves state on every job, whatever its slot', async () => {
    const writer = new JobUploadWriter(repo, 2);
    for (const id of IDS) {
      await writer.write(id, [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
      await repo.commit(record(id));
      expect(await repo.writeResults(id, 0, [{ text: 'a' }, { text: 'b' }], [ok, ok])).toBe(true);
      expect(await repo.writeResults(id, 1, [{ text: 'c' }], [ok])).toBe(true);
      expect(await repo.markRunning(id, 1000)).toBe('running');
    }
    const finished = IDS[0] as string;
    expect(await repo.finish(finished, 'completed', 2000)).toBe('completed');
    expect(await repo.get(finished)).toMatchObject({ state: 'completed', processed: 3 });
    expect((await repo.readResults(finished, 1))?.results).toEqual([ok]);
    expect(await repo.list({ tenant: 'acme', limit: 100 })).toHaveLength(IDS.length);
    expect(await repo.claimIdempotency('acme', 'key-1', 'job-1')).toBe('job-1');
    expect(await repo.claimIdempotency('acme', 'key-1', 'job-2')).toBe('job-1');
    await repo.discard('job-11', 2);
  });

  it('reserves and releases tenant quotas', async () => {
    expect(await repo.quota.reserveJob('acme', 'q1', 2)).toMatchObject({ granted: true });
    expect(await repo.quota.reserveItems('acme', 'q1', 10, 100)).toMatchObject({ granted: true });
    await repo.quota.releaseItems('acme', 'q1', 4);
    expect(await repo.quota.held('acme')).toEqual({ jobs: 1, items: 6 });
    await repo.quota.release('acme', 'q1');
    expect(await repo.quota.held('acme')).toEqual({ jobs: 0, items: 0 });
  });

  it('finds the jobs pinned to a version across every primary', async () => {
    const pins = await new JobPinReader(redis, PREFIX).pinned('intent-zh', [2], 100);
    // Every job but the finished one still runs on version 2.
    expect(pins.count).toBe(IDS.length - 2);
  });

  it("enqueues a job's BullMQ flow: parent and chunk children under {bull}", async () => {
    const producer = new JobFlowProducer(redis, PREFIX, { attempts: 1, backoffMs: 10 });
    const chunks = new Queue(CHUNK_QUEUE, { connection: redis, prefix: bullPrefix(PREFIX) });
    const jobs = new Queue(JOB_QUEUE, { connection: redis, prefix: bullPrefix(PREFIX) });
    try {
      await producer.enqueue(record('flow-1', { chunks: 3 }));
      const counts = await chunks.getJobCounts();
      expect(counts.waiting! + counts.prioritized!).toBe(3);
      expect(await jobs.getJobCounts('waiting-children')).toEqual({ 'waiting-children': 1 });
    } finally {
      await producer.close();
      await chunks.close();
      await jobs.close();
    }
  });
});
