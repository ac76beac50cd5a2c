import { isCluster, type RedisClient } from '@mesh/config';
import { pollUntil } from '../../../test/support/poll';
import { RedisClusterHarness, redisCli } from '../../../test/support/redis-servers';
import type { JobChangeFeed } from './job-change-feed';
import { JobKeys } from './job.keys';
import type { JobRepository } from './job.repository';
import { oneItemJob as record, writeOneResult } from './testing/job-fixtures';
import { nodeProbes } from './testing/job-change-probe';
import { closeJobStore, openFeedRig } from './testing/job-store';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });
/** Job ids whose `{job:<id>}` slots fall on each of the 3 primaries (checked in the spec). */
const JOBS = ['a', 'b', 'c', 'd', 'e', 'f'];
const keys = new JobKeys(PREFIX);
/** Subscribers of a job's channel on one node, by port. */
const on = nodeProbes(PREFIX, redisCli, pollUntil);
let cluster: RedisClusterHarness;
let redis: RedisClient;
let subscriber: RedisClient;
let repo: JobRepository;
let feed: JobChangeFeed;

beforeAll(async () => {
  cluster = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
  ({ redis, subscriber, repo, feed } = openFeedRig(
    PREFIX,
    { endpoint: cluster.endpoint },
    'int-feed-cluster',
    { quiet: true },
  ));
  for (const id of JOBS) await repo.commit(record(id));
});

afterAll(async () => {
  await closeJobStore({ feed, subscriber, redis });
  await cluster?.stop();
});

/** The ports of the running nodes that are primaries now. */
async function primaries(): Promise<number[]> {
  const live = cluster.nodes.filter((n) => n.running);
  const roles = await Promise.all(
    live.map(async (n) => [n.port, await redisCli(n.port, 'ROLE')] as const),
  );
  return roles.filter(([, role]) => role.startsWith('master')).map(([port]) => port);
}

/** The primary that holds the job's keys now (its slot's owner). */
async function ownerOf(jobId: string): Promise<number> {
  const ports = await primaries();
  const slot = await redisCli(ports[0] as number, 'CLUSTER', 'KEYSLOT', keys.meta(jobId));
  for (const port of ports) {
    if (Number(await redisCli(port, 'CLUSTER', 'COUNTKEYSINSLOT', slot)) > 0) return port;
  }
  throw new Error(`no primary holds ${jobId}'s keys`);
}

/** Moves the job's slot (and its keys) from one primary to another, as a reshard does. */
async function moveSlot(jobId: string, from: number, to: number): Promise<void> {
  const slot = await redisCli(from, 'CLUSTER', 'KEYSLOT', keys.meta(jobId));
  const [fromId, toId] = await Promise.all([
    redisCli(from, 'CLUSTER', 'MYID'),
    redisCli(to, 'CLUSTER', 'MYID'),
  ]);
  await redisCli(to, 'CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId);
  await redisCli(from, 'CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
  const moving = (await redisCli(from, 'CLUSTER', 'GETKEYSINSLOT', slot, '100')).split('\n');
  await redisCli(from, 'MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...moving);
  for (const port of await primaries()) {
    await redisCli(port, 'CLUSTER', 'SETSLOT', slot, 'NODE', toId);
  }
  await cluster.waitUntilOk();
}

describe('JobChangeFeed on a Redis Cluster (3 primaries, 1 replica each)', () => {
  it("wakes each job's waits from the shard that holds it, and unsubscribes there", async () => {
    const owners = await Promise.all(JOBS.map((id) => ownerOf(id)));
    expect(new Set(owners).size).toBe(3);
    const never = new AbortController().signal;
    const waits = JOBS.map((id) => feed.arm(id, never));
    await Promise.all(waits.map((w) => w.armed));
    for (const [i, id] of JOBS.entries()) {
      expect(await on(owners[i] as number).subscribers(id)).toBe(1);
    }
    for (const id of JOBS) await writeOneResult(repo, id);
    await Promise.all(waits.map((w) => w.changed));
    for (const w of waits) w.dispose();
    for (const [i, id] of JOBS.entries()) await on(owners[i] as number).untilSubscribers(id, 0);
  });

  it('after a reshard moves its slot, a wait is woken from the new owner once the subscriber refreshes its slot map', async () => {
    const jobId = 'd';
    const from = await ownerOf(jobId);
    const to = (await primaries()).find((p) => p !== from) as number;
    const wait = feed.arm(jobId, new AbortController().signal);
    await wait.armed;
    await moveSlot(jobId, from, to);
    // The old owner drops the moved slot's channels; ioredis subscribes them on the new owner
    // when it next refreshes its slot map (slotsRefreshInterval does this on a timer).
    await on(from).untilSubscribers(jobId, 0);
    if (isCluster(subscriber)) subscriber.refreshSlotsCache();
    await on(to).untilSubscribers(jobId, 1);
    await writeOneResult(repo, jobId);
    await wait.changed;
    wait.dispose();
    await on(to).untilSubscribers(jobId, 0);
  });

  it('after a primary fails over, notices reach waits again from the promoted replica', async () => {
    const jobId = 'a';
    const before = await ownerOf(jobId);
    // A replica that never finished its first sync cannot be promoted.
    await pollUntil(
      async () => {
        for (const node of cluster.nodes.filter((n) => n.running)) {
          const info = await redisCli(node.port, 'INFO', 'replication');
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) {
            return undefined;
          }
        }
        return true;
      },
      { timeoutMs: 30_000, what: 'every replica in sync' },
    );
    const wait = feed.arm(jobId, new AbortController().signal);
    await wait.armed;
    await cluster.nodes.find((n) => n.port === before)?.kill();
    const after = await pollUntil(
      async () => {
        const owner = await ownerOf(jobId).catch(() => undefined);
        return owner !== undefined && owner !== before ? owner : undefined;
      },
      { timeoutMs: 30_000, what: `a replica promoted for ${jobId}'s slot` },
    );
    await on(after).untilSubscribers(jobId, 1);
    await repo.markRunning(jobId, Date.now());
    await wait.changed;
    wait.dispose();
    await on(after).untilSubscribers(jobId, 0);
  });
});
