import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { JobPinReader } from './job-pin-reader';
import { JobRepository } from './job.repository';
import type { JobRecord } from './job.types';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = uniquePrefix(__filename);
let redis: RedisClient;
let jobs: JobRepository;

beforeAll(() => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'test-job-pin-reader' });
  jobs = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
});

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

function job(id: string, model: string, version: number): JobRecord {
  return {
    id,
    tenant: 'acme',
    task: 'question-type',
    model,
    version,
    pipeline: `bert-wordpiece@${version}`,
    state: 'running',
    total: 10,
    chunkSize: 5,
    chunks: 2,
    processed: 0,
    succeeded: 0,
    failedItems: 0,
    createdAt: 1_800_000_000_000,
  };
}

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
