import { closeRedis, type RedisClient } from '@mesh/config';
import { JobPinReader, type JobRecord, type JobRepository } from '@mesh/jobs';
import { pinnedJob } from '../../../../libs/jobs/src/testing/job-fixtures';
import { openJobStore } from '../../../../libs/jobs/src/testing/job-store';
import { FakeClock } from '../testing/fake-mesh';
import { MODEL, T0, machineWith, meshWithRoute, rolloutRecord } from '../testing/rollout-fixtures';
import type { RolloutRecord } from './rollout.types';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename);
let redis: RedisClient;
let jobs: JobRepository;

beforeAll(() => {
  ({ redis, repo: jobs } = openJobStore(
    PREFIX,
    { url: SHARED_REDIS_URL },
    'test-rollout.bulk-pins',
  ));
});

afterAll(async () => {
  await closeRedis(redis);
  await dropPrefix(PREFIX);
});

/** A `tenant`'s job half way through, pinned to `version` of the rolled-out model. */
function job(id: string, tenant: string, version: number): JobRecord {
  return pinnedJob(id, MODEL, version, {
    tenant,
    total: 10,
    chunkSize: 5,
    processed: 5,
    succeeded: 5,
    createdAt: T0,
  });
}

/** A rollout 1 → 2 that was just promoted; the fake mesh serves both versions. */
function promoted() {
  const clock = new FakeClock(T0);
  const versions = [
    { version: 1, weight: 0 },
    { version: 2, weight: 100 },
  ];
  const mesh = meshWithRoute(versions, [1, 2]);
  const record = rolloutRecord({
    id: 'ro-pins',
    plan: { steps: [{ weight: 100, holdSeconds: 1 }], bakeSeconds: 0, gates: undefined },
    state: 'promoted',
    step: 1,
    weights: versions,
    appliedEpoch: mesh.epoch,
  });
  const machine = machineWith(mesh, clock, { pins: new JobPinReader(redis, PREFIX) });
  const tick = async (r: RolloutRecord) => {
    mesh.syncRouters();
    clock.advance(1);
    return machine.advance(r);
  };
  return { mesh, record, tick };
}

describe('retiring a version waits for bulk jobs pinned to it (real job store)', () => {
  it('a running job pinned to the old version holds the rollout in draining, named in the timeline; once it finishes, the version is retired', async () => {
    await jobs.commit(job('job-old', 'acme', 1));
    // Neither a job on the new version nor a finished one on the old version blocks.
    await jobs.commit(job('job-new', 'globex', 2));
    await jobs.commit(job('job-done', 'globex', 1));
    await jobs.finish('job-done', 'completed', T0);
    const { mesh, record, tick } = promoted();

    let r = record;
    for (let i = 0; i < 6; i++) r = await tick(r);
    expect(r.state).toBe('draining');
    const waits = r.timeline.filter((e) => e.reason.startsWith('waiting for 1 bulk job'));
    // One entry however many ticks it waited.
    expect(waits).toEqual([
      expect.objectContaining({
        from: 'draining',
        to: 'draining',
        reason: 'waiting for 1 bulk job(s) pinned to version 1: job-old',
        metrics: { pinnedJobs: 1 },
      }),
    ]);
    expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 2, weight: 100 }]);
    expect([...mesh.backends.values()].map((m) => m.get(MODEL))).toEqual([
      [1, 2],
      [1, 2],
    ]);

    await jobs.finish('job-old', 'completed', T0 + 10_000);
    r = await tick(r);
    expect(r.state).toBe('completed');
    expect(r.timeline.at(-1)?.reason).toBe('retired version 1 on every backend');
    expect([...mesh.backends.values()].map((m) => m.get(MODEL))).toEqual([[2], [2]]);
  });

  it('counts pinned jobs across tenants, and only unfinished ones', async () => {
    const reader = new JobPinReader(redis, PREFIX);
    await jobs.commit(job('job-x1', 'tenant-x', 3));
    await jobs.commit(job('job-y1', 'tenant-y', 3));
    await jobs.commit(job('job-y2', 'tenant-y', 4));
    expect(await reader.pinned(MODEL, [3])).toEqual({ count: 2, jobIds: ['job-x1', 'job-y1'] });
    expect(await reader.pinned(MODEL, [3, 4])).toMatchObject({ count: 3 });
    expect(await reader.pinned('other-model', [3])).toEqual({ count: 0, jobIds: [] });
    await jobs.finish('job-x1', 'cancelled', T0);
    expect(await reader.pinned(MODEL, [3])).toEqual({ count: 1, jobIds: ['job-y1'] });
  });
});
