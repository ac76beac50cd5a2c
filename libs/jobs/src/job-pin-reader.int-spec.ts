import { closeRedis, type RedisClient } from '@mesh/config';
import { JobPinReader } from './job-pin-reader';
import type { JobRepository } from './job.repository';
import { pinnedJob as job } from './testing/job-fixtures';
import { openJobStore } from './testing/job-store';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename);
let redis: RedisClient;
let jobs: JobRepository;

beforeAll(() => {
  ({ redis, repo: jobs } = openJobStore(PREFIX, { url: SHARED_REDIS_URL }, 'test-job-pin-reader'));
});

afterAll(async () => {
  await closeRedis(redis);
  await dropPrefix(PREFIX);
});

describe('JobPinReader.allPinned (real Redis)', () => {
  it('lists each pinned (model, version) of unfinished jobs once, sorted', async () => {
    const reader = new JobPinReader(redis, PREFIX);
    expect(await reader.allPinned()).toEqual([]);
    await jobs.commit(job('j1', 'qt', 3));
    await jobs.commit(job('j2', 'qt', 3));
    await jobs.commit(job('j3', 'intent', 1));
    await jobs.commit(job('j4', 'qt', 2));
    await jobs.finish('j4', 'completed', 1_800_000_001_000);
    expect(await reader.allPinned()).toEqual([
      { model: 'intent', version: 1 },
      { model: 'qt', version: 3 },
    ]);
    expect(await reader.pinned('qt', [3])).toEqual({ count: 2, jobIds: ['j1', 'j2'] });
  });
});
