import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { closeRedis, createRedis, formatHostPort } from '@mesh/config';
import { JobKeys } from '@mesh/jobs';
import { RolloutKeys } from '@mesh/rollout-contract';
import { RoutingTableRepository, readMeshConfigFile } from '@mesh/routing';
import { ROOT, killGroup, uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';
import { dropPrefix } from './support/redis-prefix';
import { RedisClusterHarness } from './support/redis-servers';

interface MeshUpEvent {
  event: 'mesh-up';
  ready: boolean;
  urls: Record<string, Record<string, string>>;
}

interface StartedUp {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  up: MeshUpEvent;
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN = 'mesh-admin-demo-key';
/** The file's keys on the shared Redis; each test works under its own part of it. */
const FILE_PREFIX = uniquePrefix(__filename);

// After every test: the apps of `npm run up` are gone by then, so nothing writes there again.
afterAll(() => dropPrefix(FILE_PREFIX));

/**
 * `npm run up [args]` with every port chosen by the OS, until it prints its `mesh-up` line;
 * `env` adds to the environment (an empty value unsets a variable for the apps).
 */
async function startUp(
  prefix: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<StartedUp> {
  const proc = spawn(process.execPath, [join(ROOT, 'scripts', 'up.js'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      MESH_UP_SKIP_SETUP: '1',
      REDIS_KEY_PREFIX: prefix,
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      ROUTER_HTTP_PORT: '0',
      ROUTER_GRPC_PORT: '0',
      WORKER_PORT: '0',
      COORDINATOR_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a failed test kills the apps it started along with it.
    detached: true,
  });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  try {
    const up = await pollUntil(
      () => {
        const line = output.split('\n').find((l) => l.startsWith('{"event":"mesh-up"'));
        return line ? (JSON.parse(line) as MeshUpEvent) : undefined;
      },
      { timeoutMs: 90_000, what: 'the mesh to come up' },
    );
    return { proc, output: () => output, exited, up };
  } catch (err: unknown) {
    killGroup(proc);
    // The message is built after the poll failed, so it shows the output up to the timeout.
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`${why}; output:\n${output.slice(-3000)}`);
  }
}

describe('npm run up', () => {
  it('brings up all four apps, each ready, and stops them all on Ctrl-C', async () => {
    const prefix = `${FILE_PREFIX}:up`;
    const { proc, output, exited, up } = await startUp(prefix);
    try {
      expect(up.ready).toBe(true);
      for (const app of ['model-host', 'router', 'batch-worker', 'coordinator']) {
        const res = await fetch(`${up.urls[app]!.http}/healthz/ready`);
        expect({ app, status: res.status }).toEqual({ app, status: 200 });
      }
      expect(output()).toContain('model mesh is up:');
      // People open the dashboard: the summary prints its URL, not the coordinator's root.
      expect(output()).toContain(
        `coordinator   ${up.urls.coordinator!.http}/ui (operator dashboard), API ${up.urls.coordinator!.http} (OpenAPI at /docs)`,
      );
      // The summary names the key namespace; each app announced it at start.
      expect(output()).toMatch(new RegExp(`redis +redis://\\S+, key prefix "${prefix}"`));
      for (const app of ['router', 'batch-worker', 'coordinator']) {
        expect(output()).toContain(`${app.padEnd(12)}| info  redis key prefix "${prefix}"`);
      }
      // Routability lines say which version they are about.
      expect(output()).toMatch(/router +\| info {2}version routable: [a-z-]+ v\d+/);
      proc.kill('SIGINT');
      await expect(exited).resolves.toBe(0);
    } finally {
      killGroup(proc);
    }
  }, 120_000);

  it('with --fresh starts from the seeded demo: routes from the seed, no rollouts or jobs left, every seeded version loaded', async () => {
    const prefix = `${FILE_PREFIX}:fresh`;
    const redis = createRedis('commands', { url: REDIS_URL, name: 'mesh-up-e2e' });
    const seed = await readMeshConfigFile(join(ROOT, 'deploy', 'config', 'mesh.yaml'));
    const table = new RoutingTableRepository(redis, { keyPrefix: prefix });
    const rollouts = new RolloutKeys(prefix);
    const jobs = new JobKeys(prefix);
    let started: StartedUp | undefined;
    try {
      // What a finished demo leaves: question-type all on version 2 after a rollout that
      // retired version 1 (desired versions [2]), its record, and a bulk job.
      await table.reseed(
        {
          ...seed,
          routes: seed.routes.map((r) =>
            r.task === 'question-type' ? { ...r, versions: [{ version: 2, weight: 100 }] } : r,
          ),
        },
        'mesh-up-e2e',
      );
      await redis
        .multi()
        .hset(rollouts.record('ro-demo'), 'rev', 3, 'json', '{}')
        .zadd(rollouts.index(), 1, 'ro-demo')
        .hset(rollouts.desired(), 'question-type-zh', '[2]')
        .hset(jobs.meta('job-demo'), 'state', 'completed')
        .zadd(jobs.all(), 1, 'job-demo')
        .exec();

      started = await startUp(prefix, ['--fresh']);
      const { up, output } = started;
      expect(up.ready).toBe(true);
      expect(output()).toContain('> resetting to the seeded demo (--fresh)');
      expect(output()).toMatch(/rollouts: [1-9]\d* key\(s\) removed/);
      expect(output()).toMatch(/jobs: [1-9]\d* key\(s\) removed/);

      // The table is the seed again, and the apps see nothing of the demo before.
      const routes = (await table.load())?.routes ?? [];
      expect(routes.map((r) => [r.tenant, r.task, r.versions])).toEqual(
        seed.routes.map((r) => [r.tenant, r.task, r.versions]),
      );
      const coordinator = up.urls.coordinator!.http!;
      const list = await fetch(`${coordinator}/v1/rollouts`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(await list.json()).toEqual({ rollouts: [] });
      expect(await redis.exists(jobs.meta('job-demo'), jobs.all())).toBe(0);
      // Every version the seeded routes name is desired and READY on the host.
      const seeded = seed.routes
        .filter((r) => r.model === 'question-type-zh')
        .flatMap((r) => r.versions.map((v) => v.version));
      const wanted = [...new Set(seeded)].sort((a, b) => a - b);
      expect(JSON.parse((await redis.hget(rollouts.desired(), 'question-type-zh'))!)).toEqual(
        wanted,
      );
      await pollUntil(
        async () => {
          const res = await fetch(`${up.urls['model-host']!.http}/v2/repository/index`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          const index = (await res.json()) as { name: string; version: string; state: string }[];
          const ready = index
            .filter((m) => m.name === 'question-type-zh' && m.state === 'READY')
            .map((m) => Number(m.version));
          return wanted.every((v) => ready.includes(v)) ? true : undefined;
        },
        { timeoutMs: 60_000, what: `question-type-zh ${wanted.join(', ')} READY on the host` },
      );
      started.proc.kill('SIGINT');
      await expect(started.exited).resolves.toBe(0);
    } finally {
      killGroup(started?.proc);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await closeRedis(redis);
    }
  }, 180_000);

  it('uses a Redis Cluster named in the environment, starting no local Redis', async () => {
    const cluster = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
    let started: StartedUp | undefined;
    try {
      if (cluster.endpoint.mode !== 'cluster') throw new Error('not a cluster');
      const nodes = cluster.endpoint.nodes.map(formatHostPort).join(',');
      // On a cluster this test starts and stops: nothing of it outlives the test.
      const prefix = uniquePrefix(__filename, 'cluster', { ownServer: true });
      started = await startUp(prefix, [], { REDIS_URL: '', REDIS_CLUSTER_NODES: nodes });
      expect(started.up.ready).toBe(true);
      expect(started.output()).toContain(`redis         cluster ${nodes}, key prefix "${prefix}"`);
      expect(started.output()).not.toContain('starting redis-server');
      // The demo routes were seeded into the cluster, not into the standalone Redis.
      const redis = createRedis('commands', { endpoint: cluster.endpoint, name: 'mesh-up-e2e' });
      try {
        expect(await redis.exists(`${prefix}:{routes}:table`)).toBe(1);
      } finally {
        await closeRedis(redis);
      }
      started.proc.kill('SIGINT');
      await expect(started.exited).resolves.toBe(0);
    } finally {
      killGroup(started?.proc);
      await cluster.stop();
    }
  }, 180_000);
});
