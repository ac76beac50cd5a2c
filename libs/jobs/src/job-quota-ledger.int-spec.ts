import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { JobQuotaLedger } from './job-quota-ledger';
import { JobRepository } from './job.repository';
import { classified, jobRecord, oneItemJob } from './testing/job-fixtures';
import { jobStoreOptions } from './testing/job-store';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename);
const options = jobStoreOptions(PREFIX);
/** Several connections, so reservations really race instead of queueing on one socket. */
let clients: RedisClient[];
let ledgers: JobQuotaLedger[];
let repo: JobRepository;

beforeAll(() => {
  clients = Array.from({ length: 6 }, () =>
    createRedis('commands', { url: SHARED_REDIS_URL, name: 'test-job-quota.ledger' }),
  );
  ledgers = clients.map((c) => new JobQuotaLedger(c, options));
  repo = new JobRepository(clients[0]!, options);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => closeRedis(c)));
  await dropPrefix(PREFIX);
});

const ledger = (i: number) => ledgers[i % ledgers.length]!;

describe('JobQuotaLedger (real Redis, concurrent reservations)', () => {
  it('grants exactly K of N concurrent job-slot reservations against maxConcurrentJobs = K', async () => {
    const N = 40;
    const K = 7;
    const got = await Promise.all(
      Array.from({ length: N }, (_, i) => ledger(i).reserveJob('t-slots', `job-${i}`, K)),
    );
    expect(got.filter((r) => r.granted)).toHaveLength(K);
    expect(await ledgers[0]!.held('t-slots')).toEqual({ jobs: K, items: 0 });
    // A refused reservation reports the tenant's count; a second call for a held job is a no-op.
    expect(got.find((r) => !r.granted)?.held).toBe(K);
    const holder = got.findIndex((r) => r.granted);
    expect(await ledgers[0]!.reserveJob('t-slots', `job-${holder}`, K)).toEqual({
      granted: true,
      held: K,
    });
  });

  it('grants exactly K of N concurrent item reservations against maxQueuedItems = K chunks', async () => {
    const tenant = 't-items';
    for (const id of ['a', 'b', 'c']) {
      expect((await ledgers[0]!.reserveJob(tenant, id, 3)).granted).toBe(true);
    }
    const N = 60;
    const K = 11;
    const chunk = 512;
    const got = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        ledger(i).reserveItems(tenant, ['a', 'b', 'c'][i % 3]!, chunk, K * chunk),
      ),
    );
    expect(got.filter((r) => r.granted)).toHaveLength(K);
    expect(await ledgers[0]!.held(tenant)).toEqual({ jobs: 3, items: K * chunk });
  });

  it('gives items back as they are processed and the slot when the job ends', async () => {
    const tenant = 't-release';
    await ledgers[0]!.reserveJob(tenant, 'j', 1);
    await ledgers[0]!.reserveItems(tenant, 'j', 100, 100);
    expect((await ledgers[0]!.reserveItems(tenant, 'j', 1, 100)).granted).toBe(false);
    await ledgers[0]!.releaseItems(tenant, 'j', 40);
    expect(await ledgers[0]!.held(tenant)).toEqual({ jobs: 1, items: 60 });
    await ledgers[0]!.releaseItems(tenant, 'j', 1000);
    expect(await ledgers[0]!.held(tenant)).toEqual({ jobs: 1, items: 0 });
    expect((await ledgers[0]!.reserveJob(tenant, 'k', 1)).granted).toBe(false);
    await ledgers[0]!.release(tenant, 'j');
    expect((await ledgers[0]!.reserveJob(tenant, 'k', 1)).granted).toBe(true);
    // Items for a job that lost its slot are refused, and say so.
    expect(await ledgers[0]!.reserveItems(tenant, 'j', 1, 100)).toEqual({
      granted: false,
      held: 0,
      lost: true,
    });
  });

  it('is released by the job store: once per chunk on its first result write, all of it on finish', async () => {
    const tenant = 't-repo';
    await repo.quota.reserveJob(tenant, 'r1', 5);
    await repo.quota.reserveItems(tenant, 'r1', 3, 10);
    await repo.commit(jobRecord('r1', { tenant }));
    const ok = classified();
    const items = [{ text: 'a' }, { text: 'b' }];
    expect(await repo.writeResults('r1', 0, items, [ok, ok])).toBe(true);
    expect(await repo.writeResults('r1', 0, items, [ok, ok])).toBe(false);
    expect(await repo.quota.held(tenant)).toEqual({ jobs: 1, items: 1 });
    await repo.finish('r1', 'cancelled', Date.now());
    expect(await repo.quota.held(tenant)).toEqual({ jobs: 0, items: 0 });
  });

  it('sweeps an idle reservation whose job is gone or ended, never a live one', async () => {
    const tenant = 't-sweep';
    const t0 = 1_000_000;
    await repo.quota.reserveJob(tenant, 'dead-upload', 5, t0);
    await repo.quota.reserveJob(tenant, 'live', 5, t0);
    await repo.commit(oneItemJob('live', { tenant, state: 'running' }));
    await repo.quota.reserveJob(tenant, 'fresh-upload', 5, t0 + 9_000);
    const swept = await repo.quota.sweep(tenant, 5_000, (id) => repo.isOver(id), t0 + 10_000);
    expect(swept).toEqual(['dead-upload']);
    expect((await repo.quota.held(tenant)).jobs).toBe(2);
  });
});
