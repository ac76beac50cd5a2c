/**
 * Real Redis topologies on loopback for integration specs: a standalone server, a Redis Cluster
 * (3 primaries, 1 replica each) and a Sentinel setup (primary, replica, 3 Sentinels). Each runs
 * `redis-server` (and `redis-cli --cluster create`) from PATH on free ports, keeps nothing on
 * disk (`--save "" --appendonly no`) and works in a temp dir; `stop()` kills its processes and
 * removes the dir. Specs name the result's `endpoint` to `createRedis`.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HostPort, RedisEndpoint } from '@mesh/config';
import { freePort } from './free-port';
import { pollUntil } from './poll';

const run = promisify(execFile);
const HOST = '127.0.0.1';

/** `redis-cli -p <port> <args>`: its output, trimmed. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], {
    timeout: 10_000,
  });
  return stdout.trim();
}

/** One redis-server process (data node or Sentinel) and what it printed. */
export class RedisProcess {
  private output = '';
  private child: ChildProcess;
  private exited!: Promise<void>;
  private readonly onExit = () => this.child.kill('SIGKILL');

  constructor(
    readonly port: number,
    child: ChildProcess,
    private readonly args: readonly string[] = [],
  ) {
    this.child = child;
    this.attach(child);
  }

  static async start(port: number, args: readonly string[]): Promise<RedisProcess> {
    const server = new RedisProcess(port, RedisProcess.spawn(args), args);
    await server.ready();
    return server;
  }

  /**
   * Starts the killed process again with the same arguments (plus `extraArgs`, e.g.
   * `--replicaof` the promoted primary), port and directory: a Cluster node reads its nodes.conf
   * and rejoins; a data node comes back empty, nothing is on disk.
   */
  async restart(extraArgs: readonly string[] = []): Promise<void> {
    if (this.running) throw new Error(`redis-server on ${this.port} is still running`);
    this.child = RedisProcess.spawn([...this.args, ...extraArgs]);
    this.attach(this.child);
    await this.ready();
  }

  private static spawn(args: readonly string[]): ChildProcess {
    return spawn('redis-server', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  }

  private attach(child: ChildProcess): void {
    child.stdout?.on('data', (chunk: Buffer) => this.append(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.append(chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    // A spec that dies without its afterAll leaves no server behind.
    process.once('exit', this.onExit);
  }

  private async ready(): Promise<void> {
    const port = this.port;
    await pollUntil(async () => ((await redisCli(port, 'PING')) === 'PONG' ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: `redis-server on ${port}`,
    }).catch((err: unknown) => {
      this.child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${this.log()}`);
    });
  }

  get address(): HostPort {
    return { host: HOST, port: this.port };
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process printed (for a failing spec's message). */
  log(): string {
    return this.output.split('\n').slice(-30).join('\n');
  }

  /** Freezes the process (SIGSTOP): it keeps its connections but answers nothing until `resume`. */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  /** Kills the process (SIGKILL: a crash, as a failover test needs) and waits for its exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    process.removeListener('exit', this.onExit);
    if (this.running) this.child.kill(signal);
    await this.exited;
  }

  private append(chunk: Buffer): void {
    this.output = (this.output + chunk.toString()).slice(-20_000);
  }
}

/** Data-node flags every topology shares: loopback only, nothing on disk, in `dir`. */
function nodeArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
  ];
}

async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** Servers, their temp dir and how to end them. */
abstract class Topology {
  protected constructor(
    readonly dir: string,
    protected readonly processes: RedisProcess[],
  ) {}

  abstract readonly endpoint: RedisEndpoint;

  /** Kills every process and removes the temp dir. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.kill()));
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Every process's last lines, for a failing spec's message. */
  logs(): string {
    return this.processes.map((p) => `--- ${p.port}\n${p.log()}`).join('\n');
  }
}

/** One standalone server (for settings checks that must not touch the shared dev Redis). */
export class StandaloneRedis extends Topology {
  readonly endpoint: RedisEndpoint;

  private constructor(
    dir: string,
    readonly server: RedisProcess,
  ) {
    super(dir, [server]);
    this.endpoint = { mode: 'standalone', url: `redis://${HOST}:${server.port}`, tls: false };
  }

  static async start(): Promise<StandaloneRedis> {
    const dir = await mkdtemp(join(tmpdir(), 'mesh-redis-'));
    const [port] = await freePorts(1);
    try {
      return new StandaloneRedis(
        dir,
        await RedisProcess.start(port as number, nodeArgs(port as number, dir)),
      );
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }
}

/**
 * A Redis Cluster of `primaries` masters with `replicas` replicas each, slots spread by
 * `redis-cli --cluster create`. The cluster bus port of each node is a free port of its own
 * (`--cluster-port`), since port + 10000 may not exist.
 */
export class RedisClusterHarness extends Topology {
  readonly endpoint: RedisEndpoint;

  private constructor(
    dir: string,
    readonly nodes: RedisProcess[],
  ) {
    super(dir, nodes);
    this.endpoint = { mode: 'cluster', nodes: nodes.map((n) => n.address), tls: false };
  }

  static async start({ primaries = 3, replicas = 1 } = {}): Promise<RedisClusterHarness> {
    const dir = await mkdtemp(join(tmpdir(), 'mesh-redis-cluster-'));
    const count = primaries * (1 + replicas);
    const ports = await freePorts(count * 2);
    const nodes: RedisProcess[] = [];
    const harness = () => new RedisClusterHarness(dir, nodes);
    try {
      for (let i = 0; i < count; i += 1) {
        const port = ports[i] as number;
        const args = [
          ...nodeArgs(port, dir),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-port',
          String(ports[count + i]),
          '--cluster-node-timeout',
          '2000',
        ];
        nodes.push(await RedisProcess.start(port, args));
      }
      await run(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...nodes.map((n) => `${HOST}:${n.port}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ],
        { timeout: 30_000 },
      );
      const cluster = harness();
      await cluster.waitUntilOk();
      return cluster;
    } catch (err) {
      const logs = harness().logs();
      await harness().stop();
      throw new Error(`Redis Cluster did not start: ${(err as Error).message}\n${logs}`);
    }
  }

  /**
   * Until every node says `cluster_state:ok` and knows every other node, and every replica has
   * finished its first sync (`master_link_status:up`): before that a replica acknowledges no
   * write (WAIT) and a killed primary is not failed over.
   */
  async waitUntilOk(timeoutMs = 30_000): Promise<void> {
    await pollUntil(
      async () => {
        for (const node of this.nodes) {
          const info = await redisCli(node.port, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return undefined;
          if (!info.includes(`cluster_known_nodes:${this.nodes.length}`)) return undefined;
          const replication = await redisCli(node.port, 'INFO', 'replication');
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
            return undefined;
        }
        return true;
      },
      { timeoutMs, intervalMs: 100, what: 'cluster_state:ok and synced replicas on every node' },
    );
  }

  /** The ports of the nodes that are masters now. */
  async primaryPorts(): Promise<number[]> {
    const roles = await Promise.all(
      this.nodes.map(async (n) =>
        (await redisCli(n.port, 'ROLE')).startsWith('master') ? n.port : 0,
      ),
    );
    return roles.filter((p) => p !== 0);
  }
}

/**
 * A primary, one replica (`--replicaof`) and 3 Sentinels monitoring them as `masterName` with
 * quorum 2, a 1 s down-after and a 3 s failover timeout, so a killed primary is replaced within
 * seconds.
 */
export class RedisSentinelHarness extends Topology {
  readonly endpoint: RedisEndpoint;

  private constructor(
    dir: string,
    readonly masterName: string,
    readonly primary: RedisProcess,
    readonly replica: RedisProcess,
    readonly sentinels: RedisProcess[],
  ) {
    super(dir, [primary, replica, ...sentinels]);
    this.endpoint = {
      mode: 'sentinel',
      sentinels: sentinels.map((s) => s.address),
      masterName,
      tls: false,
    };
  }

  static async start({ masterName = 'mesh' } = {}): Promise<RedisSentinelHarness> {
    const dir = await mkdtemp(join(tmpdir(), 'mesh-redis-sentinel-'));
    const [primaryPort, replicaPort, ...sentinelPorts] = (await freePorts(5)) as [
      number,
      number,
      ...number[],
    ];
    const started: RedisProcess[] = [];
    try {
      const primary = await RedisProcess.start(primaryPort, nodeArgs(primaryPort, dir));
      started.push(primary);
      const replica = await RedisProcess.start(replicaPort, [
        ...nodeArgs(replicaPort, dir),
        '--replicaof',
        HOST,
        String(primaryPort),
      ]);
      started.push(replica);
      const sentinels: RedisProcess[] = [];
      for (const port of sentinelPorts) {
        // Sentinel rewrites its config file (discovered peers, epochs): one per Sentinel.
        const conf = join(dir, `sentinel-${port}.conf`);
        await writeFile(
          conf,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            `sentinel monitor ${masterName} ${HOST} ${primaryPort} 2`,
            `sentinel down-after-milliseconds ${masterName} 1000`,
            `sentinel failover-timeout ${masterName} 3000`,
            `sentinel parallel-syncs ${masterName} 1`,
            '',
          ].join('\n'),
        );
        const sentinel = await RedisProcess.start(port, [conf, '--sentinel']);
        started.push(sentinel);
        sentinels.push(sentinel);
      }
      const harness = new RedisSentinelHarness(dir, masterName, primary, replica, sentinels);
      await harness.waitUntilMonitored();
      return harness;
    } catch (err) {
      const logs = started.map((p) => `--- ${p.port}\n${p.log()}`).join('\n');
      await Promise.all(started.map((p) => p.kill()));
      await rm(dir, { recursive: true, force: true });
      throw new Error(`Sentinel setup did not start: ${(err as Error).message}\n${logs}`);
    }
  }

  /**
   * Until the replica is in sync and every Sentinel sees the primary, the replica and the two
   * other Sentinels: before that a killed primary could not be failed over. (`primary` and
   * `replica` are the roles at start; `roles()` says which is which after a failover.)
   */
  async waitUntilMonitored(timeoutMs = 30_000): Promise<void> {
    await pollUntil(
      async () => {
        const { replica } = await this.roles();
        const replication = await redisCli(replica.port, 'INFO', 'replication');
        if (!replication.includes('master_link_status:up')) return undefined;
        for (const sentinel of this.sentinels) {
          const fields = (await redisCli(sentinel.port, 'SENTINEL', 'MASTER', this.masterName))
            .split('\n')
            .map((l) => l.trim());
          const value = (name: string) => fields[fields.indexOf(name) + 1];
          if (value('num-slaves') !== '1' || value('num-other-sentinels') !== '2') return undefined;
        }
        return true;
      },
      { timeoutMs, intervalMs: 200, what: 'Sentinels monitoring the primary and replica' },
    );
  }

  /** Which of the two data nodes the Sentinels name as the primary now, and the other one. */
  async roles(): Promise<{ primary: RedisProcess; replica: RedisProcess }> {
    const port = await this.primaryPort();
    return port === this.replica.port
      ? { primary: this.replica, replica: this.primary }
      : { primary: this.primary, replica: this.replica };
  }

  /** The port the Sentinels name as the primary now. */
  async primaryPort(): Promise<number> {
    const reply = await redisCli(
      this.sentinels[0]?.port as number,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      this.masterName,
    );
    return Number(reply.split('\n')[1]);
  }
}
