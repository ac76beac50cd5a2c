import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appArgv, ROOT } from '../../test/support/app-main';
import { freePort } from '../../test/support/free-port';
import { pollUntil } from '../../test/support/poll';

/**
 * Starts the mesh's processes for the chaos scenarios: a private redis-server (own port, own
 * directory, AOF on request), model hosts, routers, batch workers and coordinators from `dist/`.
 * Every process is a real child on loopback; the `Cluster` remembers all of them so a scenario
 * (or the runner, when a scenario overruns) can end them in one call. Processes that must come
 * back at the same address after a kill (hosts, routers, Redis) get a fixed port picked once.
 */

export { ROOT };

/** The chaos tenants: one with limits far above what one machine serves, one small. */
export const CHAOS_KEY = 'chaos-tenant-key';
export const SMALL_KEY = 'chaos-small-tenant-key';
export const ADMIN_KEY = 'chaos-admin-key';
export const TASK = 'question-type';
export const MODEL = 'question-type-zh';

export { freePort };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a value other than undefined; throws after `timeoutMs`. */
export function waitFor<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 60_000,
  intervalMs = 50,
): Promise<T> {
  return pollUntil(fn, { timeoutMs, intervalMs, what });
}

/**
 * Every child still running, whichever cluster started it: killed when this process exits,
 * even through an uncaught error, so a crashed run never leaves servers behind.
 */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** One started process; `restart()` spawns it again with the same arguments and environment. */
export interface Proc {
  name: string;
  readonly pid: number;
  /** URL per listener (`http`, `grpc`, `metrics`), from the app's `listening` log events. */
  readonly urls: Record<string, string>;
  /** The last lines of its output, for error messages. */
  tail(): string;
  running(): boolean;
  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). Returns the exit code. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
  /** Sends `signal` without waiting. */
  signal(signal: NodeJS.Signals): void;
  exited(): Promise<number | null>;
  restart(): Promise<void>;
}

interface Spec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Listener names to wait for (apps), or a readiness probe (Redis). */
  listeners: string[];
  ready?: () => Promise<boolean>;
  timeoutMs: number;
}

class ChildProc implements Proc {
  private proc?: ChildProcess;
  private lines: string[] = [];
  private exit?: Promise<number | null>;
  /** Listeners announced by the current process (urls keep the previous ones meanwhile). */
  private announced = new Set<string>();
  urls: Record<string, string> = {};

  constructor(
    private readonly spec: Spec,
    private readonly onSpawn: (p: ChildProc) => void,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get pid(): number {
    return this.proc?.pid ?? 0;
  }

  tail(): string {
    return this.lines.slice(-30).join('\n');
  }

  running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running()) this.proc!.kill(signal);
  }

  exited(): Promise<number | null> {
    return this.exit ?? Promise.resolve(null);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<number | null> {
    if (!this.running()) return this.exited();
    this.proc!.kill(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    const code = await this.exited();
    clearTimeout(timer);
    return code;
  }

  async start(): Promise<void> {
    const { spec } = this;
    // urls are kept across a restart (callers may look while it is down); readiness waits
    // for this process's own announcements.
    this.announced = new Set();
    const proc = spawn(spec.command, spec.args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    children.add(proc);
    this.onSpawn(this);
    this.exit = new Promise((resolve) =>
      proc.on('exit', (code) => {
        children.delete(proc);
        resolve(code);
      }),
    );
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        this.lines.push(line.slice(0, 500));
        if (this.lines.length > 200) this.lines.splice(0, 100);
        if (!line.includes('"listening"')) continue;
        try {
          const evt = JSON.parse(line) as { listener?: string; url?: string };
          if (evt.listener && evt.url) {
            this.urls[evt.listener] = evt.url;
            this.announced.add(evt.listener);
          }
        } catch {
          // not a JSON log line
        }
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    const deadline = Date.now() + spec.timeoutMs;
    for (;;) {
      if (!this.running()) throw new Error(`${spec.name} exited at start:\n${this.tail()}`);
      const listening = spec.listeners.every((l) => this.announced.has(l));
      if (listening && (!spec.ready || (await spec.ready().catch(() => false)))) return;
      if (Date.now() > deadline) {
        this.signal('SIGKILL');
        throw new Error(`${spec.name} did not start within ${spec.timeoutMs} ms:\n${this.tail()}`);
      }
      await sleep(50);
    }
  }

  restart(): Promise<void> {
    if (this.running()) throw new Error(`${this.name} is still running`);
    return this.start();
  }
}

export interface RedisHandle {
  proc: Proc;
  url: string;
  port: number;
  dir: string;
}

export interface HostOptions {
  name?: string;
  /**
   * Models loaded at start in explicit control mode (as Triton runs in production, so the
   * coordinator can load and retire versions); `'all'` serves the whole repository with no
   * load/unload. Default: the seed's two models.
   */
  models?: string[] | 'all';
  /** Extra environment (e.g. ORT thread counts). */
  env?: Record<string, string>;
}

export interface RouterOptions {
  name?: string;
  /** `host:port` list of backends; defaults to every host started so far. */
  backends?: string;
  env?: Record<string, string>;
}

/** `grpc://h:p`, `http://h:p` or `h:p` → `h:p`. */
export function hostPort(url: string): string {
  return url.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '');
}

/**
 * The processes of one scenario. `prefix` isolates its Redis keys (each scenario also gets its
 * own redis-server, so FLUSHALL-free cleanup is just stopping it).
 */
export class Cluster {
  private readonly procs = new Set<ChildProc>();
  readonly hosts: Proc[] = [];
  readonly routers: Proc[] = [];
  redis?: RedisHandle;
  readonly seedPath: string;

  constructor(
    readonly dir: string,
    readonly prefix = 'chaos',
  ) {
    mkdirSync(dir, { recursive: true });
    this.seedPath = writeSeed(dir);
  }

  private track = (p: ChildProc) => this.procs.add(p);

  private async launch(spec: Spec): Promise<Proc> {
    const p = new ChildProc(spec, this.track);
    await p.start();
    return p;
  }

  /** redis-server on its own port and directory; `aof` turns on appendonly (fsync every second). */
  async startRedis({ aof = false } = {}): Promise<RedisHandle> {
    const port = await freePort();
    const dir = join(this.dir, 'redis');
    mkdirSync(dir, { recursive: true });
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      aof ? 'yes' : 'no',
      '--appendfsync',
      'everysec',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ];
    const url = `redis://127.0.0.1:${port}`;
    const proc = await this.launch({
      name: 'redis',
      command: 'redis-server',
      args,
      env: {},
      listeners: [],
      ready: () => redisPing(port),
      timeoutMs: 15_000,
    });
    this.redis = { proc, url, port, dir };
    return this.redis;
  }

  /** Redis variables of a topology started elsewhere (a Redis Cluster, a Sentinel setup). */
  private externalRedis?: Record<string, string>;

  /**
   * Points every app started from now on at `env` (e.g. `REDIS_CLUSTER_NODES`, or
   * `REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`) instead of a `startRedis()` server; `REDIS_URL`
   * is passed empty (unset) so only that mode's variables count.
   */
  useRedis(env: Record<string, string>): void {
    this.externalRedis = { REDIS_URL: '', ...env };
  }

  private redisEnv(): Record<string, string> {
    if (this.externalRedis) return { ...this.externalRedis, REDIS_KEY_PREFIX: this.prefix };
    if (!this.redis) throw new Error('start Redis first');
    return { REDIS_URL: this.redis.url, REDIS_KEY_PREFIX: this.prefix };
  }

  /** A model host on a fixed gRPC port (a restart comes back where the routers look). */
  async startHost({
    name,
    env = {},
    models = [MODEL, 'sentiment-en'],
  }: HostOptions = {}): Promise<Proc> {
    const grpcPort = await freePort();
    const host = await this.launch({
      name: name ?? `host-${this.hosts.length + 1}`,
      command: process.execPath,
      args: [
        ...appArgv('model-host'),
        ...(models === 'all'
          ? []
          : ['--model-control-mode=explicit', ...models.map((m) => `--load-model=${m}`)]),
      ],
      env: {
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: String(grpcPort),
        MODEL_HOST_METRICS_PORT: '0',
        MODEL_REPOSITORY: 'model_repository',
        MODEL_HOST_ACCESS_LOG_SAMPLE: '0',
        // Two hosts share two cores: one ORT thread each keeps them from fighting.
        ORT_INTRA_OP_THREADS: '1',
        SHUTDOWN_DRAIN_MS: '3000',
        ...env,
      },
      listeners: ['http', 'grpc', 'metrics'],
      timeoutMs: 120_000,
    });
    this.hosts.push(host);
    return host;
  }

  /** The gRPC `host:port` list of the hosts started so far. */
  backends(): string {
    return this.hosts.map((h) => hostPort(h.urls.grpc!)).join(',');
  }

  /** A router on fixed HTTP and gRPC ports, ready (routing table loaded, a backend routable). */
  async startRouter({ name, backends, env = {} }: RouterOptions = {}): Promise<Proc> {
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    const id = name ?? `router-${this.routers.length + 1}`;
    const router = await this.launch({
      name: id,
      command: process.execPath,
      args: appArgv('router'),
      env: {
        ...this.redisEnv(),
        ROUTER_HTTP_PORT: String(httpPort),
        ROUTER_GRPC_PORT: String(grpcPort),
        ROUTER_ID: id,
        MODEL_REPOSITORY: 'model_repository',
        KSERVE_ENDPOINTS: backends ?? this.backends(),
        MESH_CONFIG: this.seedPath,
        ADMIN_API_KEY: ADMIN_KEY,
        ROUTER_ACCESS_LOG_SAMPLE: '0',
        ...env,
      },
      listeners: ['http', 'grpc'],
      ready: async () => (await fetch(`http://127.0.0.1:${httpPort}/healthz/ready`)).ok,
      timeoutMs: 60_000,
    });
    this.routers.push(router);
    return router;
  }

  async startWorker(env: Record<string, string> = {}, name = 'worker'): Promise<Proc> {
    return this.launch({
      name,
      command: process.execPath,
      args: appArgv('batch-worker'),
      env: {
        ...this.redisEnv(),
        WORKER_PORT: '0',
        MODEL_REPOSITORY: 'model_repository',
        KSERVE_ENDPOINTS: this.backends(),
        // Short lock and stall intervals: a killed worker's chunk comes back within seconds.
        WORKER_LOCK_MS: '2000',
        WORKER_STALLED_INTERVAL_MS: '1000',
        WORKER_VERSION_WAIT_MS: '300',
        KSERVE_HEALTH_INTERVAL_MS: '200',
        JOBS_BACKOFF_MS: '200',
        ...env,
      },
      listeners: ['http'],
      timeoutMs: 60_000,
    });
  }

  async startCoordinator(env: Record<string, string> = {}, name = 'coordinator'): Promise<Proc> {
    const port = await freePort();
    return this.launch({
      name,
      command: process.execPath,
      args: appArgv('coordinator'),
      env: {
        ...this.redisEnv(),
        COORDINATOR_PORT: String(port),
        COORDINATOR_ID: name,
        ADMIN_API_KEY: ADMIN_KEY,
        MODEL_REPOSITORY: 'model_repository',
        KSERVE_ENDPOINTS: this.backends(),
        COORDINATOR_TICK_MS: '200',
        COORDINATOR_LEASE_MS: '2000',
        COORDINATOR_RECONCILE_MS: '500',
        ...env,
      },
      listeners: ['http'],
      timeoutMs: 60_000,
    });
  }

  /** Every process still running, with its pid (for RSS sampling). */
  live(): Proc[] {
    return [...this.procs].filter((p) => p.running());
  }

  /** SIGKILLs everything this cluster started; safe to call twice. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.procs].map((p) => p.stop('SIGKILL', 5_000)));
  }
}

/** PING over a raw socket, so the launcher needs no client library for readiness. */
export function redisPing(port: number): Promise<boolean> {
  return redisCommand(port, ['PING']).then(
    (r) => r.startsWith('+PONG'),
    () => false,
  );
}

/** One RESP command over a fresh connection; resolves with the raw first reply. */
export function redisCommand(port: number, argv: string[], timeoutMs = 2000): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- node:net is loaded lazily
  const { connect } = require('node:net') as typeof import('node:net');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('redis timeout'));
    }, timeoutMs);
    let out = '';
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.endsWith('\r\n')) {
        clearTimeout(timer);
        socket.end();
        resolve(out);
      }
    });
    socket.write(
      `*${argv.length}\r\n${argv.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`,
    );
  });
}

/** Resident set size of a process in bytes, from /proc (0 when it is gone). */
export function rssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The routing seed: one route of `question-type` on version 1 for every tenant, a chaos tenant
 * whose limits never bind (the scenarios measure the mesh, not the quota) and a small tenant
 * whose in-flight cap is the overload scenario's admission bound.
 */
function writeSeed(dir: string): string {
  const sha = (k: string) => createHash('sha256').update(k).digest('hex');
  const path = join(dir, 'mesh.yaml');
  writeFileSync(
    path,
    `tenants:
  - name: chaos
    keySha256: ['${sha(CHAOS_KEY)}']
    allowedTasks: [${TASK}, sentiment]
    rateLimit: { requestsPerSecond: 100000, burst: 100000 }
    maxInFlight: 512
  - name: small
    keySha256: ['${sha(SMALL_KEY)}']
    allowedTasks: [${TASK}]
    rateLimit: { requestsPerSecond: 100000, burst: 100000 }
    maxInFlight: 16
routes:
  - tenant: '*'
    task: ${TASK}
    model: ${MODEL}
    versions: [{ version: 1, weight: 100 }]
  - tenant: '*'
    task: sentiment
    model: sentiment-en
    versions: [{ version: 1, weight: 100 }]
`,
  );
  return path;
}
