import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { meshNodeFlags } from '../../scripts/lib/mesh-node-flags';

export const ROOT = join(__dirname, '..', '..');

export interface BenchProcess {
  name: string;
  pid: number;
  url: string;
  urls: Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node <script>` and waits for its `listening` events (the mesh's log contract).
 * `root` is the checkout the script and working directory are taken from, so a run can measure
 * another checkout's build side by side; `nodeArgs` go to node itself (e.g. `--cpu-prof`, which
 * NODE_OPTIONS does not take).
 */
export async function startProcess(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  listeners: string[],
  timeoutMs = 180_000,
  root = ROOT,
  nodeArgs: string[] = [],
): Promise<BenchProcess> {
  const main = join(root, script);
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  // A mesh app runs with its checkout's node flags, as its launchers start it; other scripts
  // (the naive peer, the raw-ORT workers) with none but `nodeArgs`.
  const flags = script.startsWith('dist/apps/') ? meshNodeFlags(root) : [];
  const proc: ChildProcess = spawn(process.execPath, [...flags, ...nodeArgs, main, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const urls: Record<string, string> = {};
  const tail: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) tail.push(line.slice(0, 400));
      if (tail.length > 30) tail.shift();
      if (!line.includes('"listening"')) continue;
      try {
        const evt = JSON.parse(line) as { listener?: string; url?: string };
        if (evt.listener && evt.url) urls[evt.listener] = evt.url;
      } catch {
        // partial line
      }
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  while (!listeners.every((l) => urls[l])) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${tail.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    pid: proc.pid ?? 0,
    url: urls[listeners[0]!]!,
    urls,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null) proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

export async function waitReady(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A model host in explicit mode serving `model` from `repository`, on free ports. */
export function startBenchHost(
  name: string,
  repository: string,
  model: string,
  opts: { env?: Record<string, string>; root?: string; nodeArgs?: string[] } = {},
): Promise<BenchProcess> {
  return startProcess(
    name,
    'dist/apps/model-host/src/main.js',
    ['--model-repository', repository, '--model-control-mode=explicit', `--load-model=${model}`],
    {
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      ...opts.env,
    },
    ['http', 'grpc', 'metrics'],
    undefined,
    opts.root,
    opts.nodeArgs,
  );
}

/** The router benchmark's model, its task and the demo tenant's key that every arm uses. */
export const BENCH_MODEL = {
  name: 'intent-zh',
  version: 2,
  task: 'intent',
  key: 'acme-demo-key',
} as const;

export interface BenchMeshOptions {
  /** REDIS_KEY_PREFIX of the router (one per run, so runs never share state). */
  keyPrefix: string;
  hostNodeArgs?: string[];
  routerNodeArgs?: string[];
  /** The checkout whose built host and router run (another commit, for a before/after). */
  root?: string;
  /** Environment of both the host and the router, over their defaults (one setting's A/B). */
  env?: Record<string, string>;
}

/**
 * A model host serving the bench model from `repository` and a router in front of it on free
 * ports, both ready. Each process goes into `procs` as soon as it runs, so the caller's
 * clean-up stops it even when the other fails to start.
 */
export async function startBenchMesh(
  repository: string,
  procs: BenchProcess[],
  o: BenchMeshOptions,
): Promise<{ host: BenchProcess; router: BenchProcess }> {
  const host = await startBenchHost('model-host', repository, BENCH_MODEL.name, {
    nodeArgs: o.hostNodeArgs,
    root: o.root,
    env: o.env,
  });
  procs.push(host);
  await waitReady(`${host.urls.http}/healthz/ready`);
  const router = await startBenchRouter(host, repository, procs, o, o.env);
  return { host, router };
}

/**
 * A router in front of `host` on free ports, ready; `env` adds to (or overrides) its settings.
 * It goes into `procs` as soon as it runs.
 */
export async function startBenchRouter(
  host: BenchProcess,
  repository: string,
  procs: BenchProcess[],
  o: Pick<BenchMeshOptions, 'keyPrefix' | 'routerNodeArgs' | 'root'>,
  env: Record<string, string> = {},
): Promise<BenchProcess> {
  const router = await startProcess(
    'router',
    'dist/apps/router/src/main.js',
    [],
    {
      ROUTER_HTTP_PORT: '0',
      ROUTER_GRPC_PORT: '0',
      REDIS_KEY_PREFIX: o.keyPrefix,
      MODEL_REPOSITORY: repository,
      KSERVE_ENDPOINTS: host.urls.grpc!.replace(/^grpc:\/\//, ''),
      ...env,
    },
    ['http', 'grpc'],
    undefined,
    o.root,
    o.routerNodeArgs,
  );
  procs.push(router);
  await waitReady(`${router.url}/healthz/ready`);
  return router;
}

/**
 * The naive peer (naive-peer.server) on the bench model from `models`, with the same ORT thread
 * budget as the host (every core, one inter-op thread); it goes into `procs` once running.
 */
export async function startNaivePeer(models: string, procs: BenchProcess[]): Promise<BenchProcess> {
  const peer = await startProcess(
    'naive-peer',
    'dist/bench/router/naive-peer.server.js',
    [models, BENCH_MODEL.name, String(BENCH_MODEL.version), String(availableParallelism()), '1'],
    {},
    ['http'],
  );
  procs.push(peer);
  return peer;
}
