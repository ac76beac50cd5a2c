/**
 * `npm run bench:idle [-- --seconds 20 --as-written]`: CPU a router and a model host use while nobody calls
 * them (timers, discovery, heartbeats, signal flushes, ORT thread pools). Starts both as the
 * router benchmark does, lets them settle, then reads their CPU time from /proc over the window.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseCliArgs } from '../../scripts/cli-args';
import { dropPrefix } from '../../test/support/redis-prefix';
import { cpuSecondsOf } from './bench-measure';
import { BENCH_MODEL, ROOT, startBenchMesh, type BenchProcess } from './bench-processes';
import { asUsersWriteIt, ensureBuiltAndGenerated, repositoryVariant } from './bench-setup';

async function main(): Promise<void> {
  const { values: flags } = parseCliArgs({
    args: process.argv.slice(2),
    // `--cpu-prof <dir>`: the router also writes a CPU profile there (what its idle time goes to).
    // `--as-written`: the model's config as Triton users write it (one 2-thread instance).
    options: {
      seconds: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'as-written': { type: 'boolean' },
    },
  });
  const seconds = Number(flags.seconds ?? 20);
  const profileDir = flags['cpu-prof'];
  const models = join(ROOT, '.bench-models');
  ensureBuiltAndGenerated(models, BENCH_MODEL.name);
  const repo = flags['as-written']
    ? repositoryVariant(models, BENCH_MODEL.name, {}, { rewrite: asUsersWriteIt })
    : repositoryVariant(models, BENCH_MODEL.name, {}, { instances: availableParallelism() });
  const procs: BenchProcess[] = [];
  const keyPrefix = `bench-idle-${process.pid}`;
  try {
    const { host, router } = await startBenchMesh(repo.root, procs, {
      keyPrefix,
      routerNodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    });
    await new Promise((r) => setTimeout(r, 3000));
    const pids = { router: router.pid, host: host.pid };
    const before = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuSecondsOf(p)]));
    await new Promise((r) => setTimeout(r, seconds * 1000));
    for (const [name, pid] of Object.entries(pids)) {
      const used = cpuSecondsOf(pid) - before[name]!;
      process.stdout.write(
        `idle ${name}: ${((used * 1000) / seconds).toFixed(2)} CPU-ms per second over ${seconds} s\n`,
      );
    }
  } finally {
    for (const proc of procs.reverse()) await proc.stop('SIGTERM');
    repo.remove();
    // The router's heartbeats and signals, once nothing writes there any more.
    await dropPrefix(keyPrefix);
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench:idle failed: ${String(err)}\n`);
  process.exit(1);
});
