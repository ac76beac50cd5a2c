import { closeRedis, type RedisClient } from '@mesh/config';
import { JobChangeFeed } from './job-change-feed';
import type { JobResultLine } from './job-result-line';
import { JobReader } from './job-reader';
import type { JobRepository } from './job.repository';
import type { JobRecord } from './job.types';
import { JobNotFoundError } from './jobs.errors';
import { classified as ok, jobRecord } from './testing/job-fixtures';
import { openJobStore } from './testing/job-store';
import { SHARED_REDIS_URL, dropPrefix, uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename);
/** Near the real time: listings trim jobs older than the retention by the real clock. */
const NOW = Date.now();
const ACME = { tenant: 'acme' } as const;
const GLOBEX = { tenant: 'globex' } as const;
const ADMIN = { admin: true } as const;
let redis: RedisClient;
let repo: JobRepository;
/** Poll-only feed (no subscriber), looking again every 20 ms: follows without pub/sub. */
let feed: JobChangeFeed;
let reader: JobReader;

beforeAll(() => {
  ({ redis, repo } = openJobStore(PREFIX, { url: SHARED_REDIS_URL }, 'int-jobs-reader'));
  feed = new JobChangeFeed(undefined, PREFIX, 20, 0);
  reader = new JobReader(repo, { changes: feed, now: () => NOW });
});

afterAll(async () => {
  feed.close();
  await closeRedis(redis);
  await dropPrefix(PREFIX);
});

/** A job running for 5 s, created 10 s before `NOW`. */
function record(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return jobRecord(id, {
    state: 'running',
    createdAt: NOW - 10_000,
    startedAt: NOW - 5_000,
    ...over,
  });
}

async function collect(lines: AsyncIterable<JobResultLine[]>): Promise<JobResultLine[][]> {
  const chunks: JobResultLine[][] = [];
  for await (const chunk of lines) chunks.push(chunk);
  return chunks;
}

describe('JobReader (real Redis)', () => {
  it("answers another tenant's job exactly like an unknown one; the admin sees every job", async () => {
    await repo.commit(record('scope-1'));
    expect(await reader.status(ACME, 'scope-1')).toMatchObject({ id: 'scope-1', state: 'running' });
    expect(await reader.status(ADMIN, 'scope-1')).toMatchObject({ id: 'scope-1' });
    await expect(reader.status(GLOBEX, 'scope-1')).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(reader.status(ACME, 'scope-none')).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(reader.cancel(GLOBEX, 'scope-1', 'x')).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(collect(reader.results(GLOBEX, 'scope-1'))).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
    expect((await repo.get('scope-1'))?.state).toBe('running');
  });

  it("lists a tenant's own jobs, the admin's listing every tenant's, each with tenant and task", async () => {
    await repo.commit(record('list-a', { tenant: 'initech', task: 'topic' }));
    await repo.commit(record('list-b', { tenant: 'umbrella', state: 'queued' }));
    const own = await reader.list({ tenant: 'initech' }, { limit: 10 });
    expect(own.map((j) => [j.id, j.tenant, j.task])).toEqual([['list-a', 'initech', 'topic']]);
    const all = await reader.list(ADMIN, { limit: 100 });
    expect(all.map((j) => j.id)).toEqual(expect.arrayContaining(['list-a', 'list-b']));
    const queued = await reader.list({ tenant: 'umbrella' }, { state: 'queued', limit: 10 });
    expect(queued.map((j) => j.id)).toEqual(['list-b']);
  });

  it('cancels with the given reason and answers the job as it is after; cancelling again is a no-op', async () => {
    await repo.commit(record('cancel-1'));
    const after = await reader.cancel(ACME, 'cancel-1', 'cancelled by request');
    expect(after).toMatchObject({
      id: 'cancel-1',
      state: 'cancelled',
      reason: 'cancelled by request',
      tenant: 'acme',
      task: 'intent',
      finishedAt: new Date(NOW).toISOString(),
    });
    const again = await reader.cancel(ADMIN, 'cancel-1', 'cancelled from the dashboard');
    expect(again).toMatchObject({ state: 'cancelled', reason: 'cancelled by request' });
  });

  it('answers what is written now, from an index, skipping a running job’s unwritten chunks', async () => {
    await repo.commit(record('snap-1', { total: 5, chunks: 3 }));
    await repo.writeResults(
      'snap-1',
      0,
      [{ text: 'a', id: 'x' }, { text: 'b' }],
      [ok('a'), ok('b')],
    );
    await repo.writeResults('snap-1', 2, [{ text: 'e' }], [ok('e')]);
    const all = await collect(reader.results(ADMIN, 'snap-1'));
    expect(all.flat().map((l) => [l.index, 'label' in l ? l.label : undefined])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [4, 'e'],
    ]);
    expect(all[0]?.[0]).toMatchObject({ id: 'x', model: 'intent-zh', version: 2 });
    const fromOne = await collect(reader.results(ACME, 'snap-1', { from: 1 }));
    expect(fromOne.flat().map((l) => l.index)).toEqual([1, 4]);
  });

  it('following, waits for a chunk written later and stops at a job that ended', async () => {
    await repo.commit(record('follow-1'));
    const follow = new AbortController();
    const lines = collect(reader.results(ACME, 'follow-1', { follow: follow.signal }));
    await repo.writeResults('follow-1', 0, [{ text: 'a' }, { text: 'b' }], [ok('a'), ok('b')]);
    await repo.finish('follow-1', 'cancelled', NOW, 'cancelled by request');
    // Chunk 1 was never written: the ended job's missing chunk is skipped, not waited for.
    expect((await lines).flat().map((l) => l.index)).toEqual([0, 1]);
  });

  it('sends a status whenever progress or state changes, ending with the terminal one', async () => {
    await repo.commit(record('events-1', { total: 2, chunks: 1 }));
    const signal = new AbortController().signal;
    const seen: string[] = [];
    for await (const view of reader.events(ACME, 'events-1', signal)) {
      seen.push(`${view.state}/${view.processed}`);
      if (seen.length === 1) {
        await repo.writeResults('events-1', 0, [{ text: 'a' }, { text: 'b' }], [ok('a'), ok('b')]);
        await repo.finish('events-1', 'completed', NOW);
      }
    }
    expect(seen[0]).toBe('running/0');
    expect(seen.at(-1)).toBe('completed/2');
  });

  it('refuses to follow without a change feed, naming the option', async () => {
    await repo.commit(record('nofeed-1'));
    const plain = new JobReader(repo);
    const signal = new AbortController().signal;
    await expect(collect(plain.results(ACME, 'nofeed-1', { follow: signal }))).rejects.toThrow(
      'changes',
    );
    expect((await collect(plain.results(ACME, 'nofeed-1'))).flat()).toEqual([]);
  });
});
