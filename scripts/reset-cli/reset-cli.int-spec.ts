import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { CHUNK_QUEUE, JOB_QUEUE, JobKeys, bullPrefix } from '@mesh/jobs';
import {
  RoutingTableRepository,
  readMeshConfigFile,
  routingKeys,
  type RoutingTableData,
} from '@mesh/routing';
import { RolloutKeys } from '@mesh/rollout-contract';
import { RedisClusterHarness } from '../../test/support/redis-servers';
import { DEMO_SEED, runResetCommand } from './reset-cli.command';
import { uniquePrefix } from '../../test/support/redis-prefix';

const REDIS_URL = 'redis://127.0.0.1:6379';
/** This file's prefixes; every test gets one of its own under it. */
const FILE_PREFIX = uniquePrefix(__filename);
/** Another mesh's prefix in the same Redis: a reset must never touch it. */
const OTHER_PREFIX = uniquePrefix(__filename, 'other');
let counter = 0;

let redis: RedisClient;
let tmp: string;

beforeAll(() => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'test-mesh-reset' });
  tmp = mkdtempSync(join(tmpdir(), 'mesh-reset-'));
});

afterAll(async () => {
  for (const pattern of [`${FILE_PREFIX}:*`, `${OTHER_PREFIX}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  await closeRedis(redis);
  rmSync(tmp, { recursive: true, force: true });
});

function freshPrefix(): string {
  counter += 1;
  return `${FILE_PREFIX}:${counter}`;
}

/** Runs the command with its output captured. */
async function reset(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runResetCommand(args, {
    env: { REDIS_URL, ...env },
    print: (l) => out.push(l),
    printError: (l) => err.push(l),
    who: 'test-reset',
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every key under `prefix`, sorted. */
async function keysUnder(prefix: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    for (const k of keys) found.add(k);
    cursor = next;
  } while (cursor !== '0');
  return [...found].sort();
}

/** A table as a demo leaves it after a rollout: question-type all on version 2. */
function edited(seed: RoutingTableData): RoutingTableData {
  return {
    ...seed,
    routes: seed.routes.map((r) =>
      r.task === 'question-type' ? { ...r, versions: [{ version: 2, weight: 100 }] } : r,
    ),
  };
}

/**
 * What a demo leaves behind under `prefix`: an edited table, a finished rollout and an active
 * one, the leader lease, desired versions, a bulk job with its indexes and quota, and queues.
 * Returns the keys a reset must keep besides the routing table's own.
 */
async function writeDemoLeftovers(prefix: string, seed: RoutingTableData): Promise<string[]> {
  await new RoutingTableRepository(redis, { keyPrefix: prefix }).reseed(edited(seed), 'test');
  const rollouts = new RolloutKeys(prefix);
  const routing = routingKeys(prefix);
  const jobs = new JobKeys(prefix);
  const bull = bullPrefix(prefix);
  await redis
    .multi()
    .hset(rollouts.record('r-done'), 'rev', 9, 'json', '{}')
    .hset(rollouts.record('r-live'), 'rev', 2, 'json', '{}')
    .set(rollouts.active('*', 'question-type'), 'r-live')
    .zadd(rollouts.index(), 1, 'r-done', 2, 'r-live')
    .set(routing.leaderLease, '7 coordinator-a', 'PX', 60_000)
    .set(routing.fencingCounter, '7')
    .hset(rollouts.desired(), 'question-type-zh', '[2]', 'model-not-in-seed', '[1]')
    .hset(jobs.meta('j1'), 'state', 'running')
    .hset(jobs.chunkStats('j1'), '0', '3,0')
    .set(jobs.items('j1', 0), 'items')
    .set(jobs.results('j1', 0), 'results')
    .zadd(jobs.byTenant('acme'), 1, 'j1')
    .zadd(jobs.all(), 1, 'j1')
    .hset(jobs.quotaItems('acme'), 'j1', 3)
    .hset(jobs.quotaTouched('acme'), 'j1', 1)
    .set(jobs.idempotency('acme', 'abc'), 'j1')
    .set(`${bull}:${JOB_QUEUE}:id`, '1')
    .hset(`${bull}:${JOB_QUEUE}:j1`, 'name', 'job')
    .zadd(`${bull}:${CHUNK_QUEUE}:prioritized`, 1, 'j1:0')
    .hset(`${bull}:${CHUNK_QUEUE}:meta`, 'opts.maxLenEvents', 10_000)
    .set(`${prefix}:{signals}:1700000000000`, 'kept')
    .exec();
  return [routing.fencingCounter, `${prefix}:{signals}:1700000000000`];
}

/** The same kinds of keys under the other mesh's prefix. */
async function writeOtherMesh(): Promise<string[]> {
  const keys = [
    new JobKeys(OTHER_PREFIX).meta('j1'),
    new RolloutKeys(OTHER_PREFIX).record('r1'),
    new RolloutKeys(OTHER_PREFIX).desired(),
    `${bullPrefix(OTHER_PREFIX)}:${JOB_QUEUE}:id`,
    routingKeys(OTHER_PREFIX).leaderLease,
  ];
  for (const key of keys) await redis.hset(key, 'other', 'mesh');
  return keys;
}

describe('mesh reset (real Redis)', () => {
  let seed: RoutingTableData;

  beforeAll(async () => {
    seed = await readMeshConfigFile(DEMO_SEED);
  });

  it('without --yes prints what it would remove and changes nothing', async () => {
    const prefix = freshPrefix();
    await writeDemoLeftovers(prefix, seed);
    const before = await keysUnder(prefix);

    const r = await reset([], { REDIS_KEY_PREFIX: prefix, MESH_CONFIG: DEMO_SEED });

    expect(r.code).toBe(1);
    expect(r.out).toContain(`would reset key prefix "${prefix}"`);
    expect(r.out).toContain('rollouts: 5 key(s) would be removed');
    expect(r.out).toContain('desired versions: 1 key(s) would be removed');
    expect(r.out).toContain('bulk jobs: 4 key(s) would be removed');
    expect(r.out).toContain('job indexes: 5 key(s) would be removed');
    expect(r.out).toContain('queues: 4 key(s) would be removed');
    expect(r.err).toContain('add --yes');
    expect(await keysUnder(prefix)).toEqual(before);
  });

  it('with --yes reseeds the table and removes rollouts, desired versions, jobs and queues of its prefix only', async () => {
    const prefix = freshPrefix();
    const kept = await writeDemoLeftovers(prefix, seed);
    const other = await writeOtherMesh();
    // A prefix that starts with this one is another mesh too.
    const nested = new JobKeys(`${prefix}:nested`).meta('j1');
    await redis.hset(nested, 'other', 'mesh');

    const r = await reset(['--yes'], { REDIS_KEY_PREFIX: prefix, MESH_CONFIG: DEMO_SEED });

    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('reseeded routing table from');
    expect(r.out).toContain('rollouts: 5 key(s) removed');
    expect(r.out).toContain('desired versions: 1 key(s) removed');
    expect(r.out).toContain('bulk jobs: 4 key(s) removed');
    expect(r.out).toContain('job indexes: 5 key(s) removed');
    expect(r.out).toContain('queues: 4 key(s) removed');
    expect(r.out).toContain('desired versions of question-type-zh set to [1, 2]');

    const table = await new RoutingTableRepository(redis, { keyPrefix: prefix }).load();
    expect(table).toEqual({ ...seed, epoch: 2 });

    // Only the seeded version set of the model a rollout touched is left, so the coordinator's
    // reconciler loads the retired version 1 again; nothing else of the demo's state remains.
    const rollouts = new RolloutKeys(prefix);
    expect(await redis.hgetall(rollouts.desired())).toEqual({ 'question-type-zh': '[1,2]' });
    const routing = routingKeys(prefix);
    expect(await keysUnder(prefix)).toEqual(
      [...kept, routing.table, routing.epoch, routing.audit, rollouts.desired(), nested].sort(),
    );
    expect(await redis.get(routing.fencingCounter)).toBe('7');

    for (const key of other) expect(await redis.hgetall(key)).toEqual({ other: 'mesh' });
    expect(await redis.hgetall(nested)).toEqual({ other: 'mesh' });
  });

  it('refuses a Redis that is not on this machine without --prefix, before connecting', async () => {
    const r = await reset(['--yes'], {
      REDIS_URL: 'redis://10.255.0.1:6379',
      REDIS_KEY_PREFIX: freshPrefix(),
      MESH_CONFIG: DEMO_SEED,
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('refusing to reset: REDIS_URL is not on this machine (10.255.0.1:6379');
    expect(r.err).toContain('--prefix');
  });

  it('refuses a seed file other than the demo one unless --prefix names the prefix, and then still wants --yes', async () => {
    const prefix = freshPrefix();
    await writeDemoLeftovers(prefix, seed);
    const copy = join(tmp, 'mesh.yaml');
    copyFileSync(DEMO_SEED, copy);
    const env = { REDIS_KEY_PREFIX: 'mesh', MESH_CONFIG: copy };

    const refused = await reset(['--yes'], env);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`MESH_CONFIG (${copy}) is not the demo deploy/config/mesh.yaml`);

    const dryRun = await reset(['--prefix', prefix], env);
    expect(dryRun.code).toBe(1);
    expect(dryRun.out).toContain(`would reset key prefix "${prefix}"`);
    expect(dryRun.err).toContain(`npm run mesh -- reset --prefix ${prefix} --yes`);
    expect(await redis.exists(new JobKeys(prefix).meta('j1'))).toBe(1);

    const done = await reset(['--prefix', prefix, '--yes'], env);
    expect(done.code).toBe(0);
    expect(done.out).toContain(`reseeded routing table from ${copy}`);
    expect(await redis.exists(new JobKeys(prefix).meta('j1'))).toBe(0);
    const table = await new RoutingTableRepository(redis, { keyPrefix: prefix }).load();
    expect(table?.routes).toEqual(seed.routes);
  });

  it('answers 2 with the usage for an unknown flag or a bad prefix', async () => {
    const unknown = await reset(['--force'], { REDIS_KEY_PREFIX: freshPrefix() });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('usage: npm run mesh -- reset');
    const bad = await reset(['--prefix', 'a b*', '--yes'], {});
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--prefix must be 1-64 characters');
  });
});

describe('mesh reset on a Redis Cluster', () => {
  let cluster: RedisClusterHarness;
  let client: RedisClient;

  beforeAll(async () => {
    cluster = await RedisClusterHarness.start();
    client = createRedis('commands', {
      endpoint: cluster.endpoint,
      name: 'test-mesh-reset-cluster',
    });
  });

  afterAll(async () => {
    await closeRedis(client);
    await cluster?.stop();
  });

  it('finds the keys on every primary and removes them one slot at a time', async () => {
    const prefix = 'cluster-demo';
    const seed = await readMeshConfigFile(DEMO_SEED);
    await new RoutingTableRepository(client, { keyPrefix: prefix }).reseed(edited(seed), 'test');
    const jobs = new JobKeys(prefix);
    // Twelve jobs: their {job:<id>} slots spread over the three primaries.
    for (let i = 0; i < 12; i++) await client.hset(jobs.meta(`j${i}`), 'state', 'running');
    await client.zadd(jobs.all(), 1, 'j0');
    await client.set(`${bullPrefix(prefix)}:${JOB_QUEUE}:id`, '12');
    await client.hset(new RolloutKeys(prefix).record('r1'), 'rev', 1, 'json', '{}');
    const env = {
      REDIS_CLUSTER_NODES: nodesOf(cluster),
      REDIS_KEY_PREFIX: prefix,
      MESH_CONFIG: DEMO_SEED,
    };
    const out: string[] = [];
    const err: string[] = [];
    const code = await runResetCommand(['--yes'], {
      env,
      print: (l) => out.push(l),
      printError: (l) => err.push(l),
      who: 'test-reset',
    });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('bulk jobs: 12 key(s) removed');
    expect(out.join('\n')).toContain('job indexes: 1 key(s) removed');
    expect(out.join('\n')).toContain('queues: 1 key(s) removed');
    expect(out.join('\n')).toContain('rollouts: 1 key(s) removed');
    for (let i = 0; i < 12; i++) expect(await client.exists(jobs.meta(`j${i}`))).toBe(0);
    expect(
      (await new RoutingTableRepository(client, { keyPrefix: prefix }).load())?.routes,
    ).toEqual(seed.routes);
  });
});

function nodesOf(cluster: RedisClusterHarness): string {
  const endpoint = cluster.endpoint;
  return endpoint.mode === 'cluster'
    ? endpoint.nodes.map((n) => `${n.host}:${n.port}`).join(',')
    : '';
}
