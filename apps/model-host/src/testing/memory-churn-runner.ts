/**
 * Loads, retires and unloads versions of a model in a fresh process and prints what RSS and the
 * thread count did, as JSON on the last line: the churn int-spec runs it with the allocator
 * settings the host is deployed with, away from the test runner's own heap.
 *
 *   node --expose-gc -r tsx/cjs memory-churn-runner.ts <repository> <model> <versions> <cycles>
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Registry } from 'prom-client';
import { HostMetrics } from '../core/host.metrics';
import { ModelFilesRepository } from '../repository/model-files.repository';
import { ModelManagerService } from '../repository/model-manager.service';

export interface ChurnReport {
  baselineMb: number;
  /** Measured footprint of each cycle's version. */
  footprintsMb: number[];
  /** RSS after the last cycle, its version still loaded. */
  loadedMb: number;
  /** RSS after the final unload. */
  unloadedMb: number;
  baseThreads: number;
  /** Threads after each unload and after the final one (each must equal baseThreads). */
  threadsAfterUnload: number[];
}

const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
/** RSS once the JS heap's garbage is collected: what is left is what the sessions hold. */
const rssMb = () => {
  gc();
  return Math.round((process.memoryUsage().rss / MB) * 10) / 10;
};
/** OS threads of this process: worker threads and ORT's intra-op pool threads included. */
const threads = () =>
  Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
const only = (v: number) => JSON.stringify({ version_policy: { specific: { versions: [v] } } });

/**
 * Until the thread count is `expected` (a retired version drains in the background), or a
 * bounded number of polls: the report then shows the count that stayed.
 */
async function settle(expected: number): Promise<void> {
  for (let i = 0; i < 400 && threads() !== expected; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function churn(
  root: string,
  model: string,
  versions: number,
  cycles: number,
): Promise<ChurnReport> {
  const models = new ModelManagerService(
    new ModelFilesRepository(root),
    'explicit',
    // One 1-thread instance and a 2-thread lone-batch session: every kind of session.
    {
      intraOpThreads: 1,
      interOpThreads: 1,
      graphOptimizationLevel: 'all',
      allowSpinning: false,
      loneBatchThreads: 2,
      cores: 2,
    },
    new HostMetrics(new Registry()),
    pino({ level: 'silent' }),
  );
  // ORT's shared library and the worker bootstrap load once per process: one warm cycle first,
  // so the baseline holds what any host holds with nothing loaded.
  await models.load(model, only(1));
  await models.unload(model);
  const baseThreads = threads();
  const baselineMb = rssMb();
  const footprintsMb: number[] = [];
  const threadsAfterUnload: number[] = [];
  let withOne = 0;
  for (let cycle = 0; cycle < cycles; cycle++) {
    // Versions in turn: each load retires the previous one (drained in the background); every
    // other cycle then unloads the model outright.
    await models.load(model, only((cycle % versions) + 1));
    footprintsMb.push(models.runtimes(model)[0]?.spec.measuredMemoryMb ?? 0);
    withOne ||= threads();
    await settle(withOne);
    if (cycle % 2 === 0) {
      await models.unload(model);
      await settle(baseThreads);
      threadsAfterUnload.push(threads());
    }
  }
  const loadedMb = rssMb();
  await models.unload(model);
  await settle(baseThreads);
  threadsAfterUnload.push(threads());
  return {
    baselineMb,
    footprintsMb,
    loadedMb,
    unloadedMb: rssMb(),
    baseThreads,
    threadsAfterUnload,
  };
}

/** The positionals; an option (it takes none) is refused with exit 2 before anything loads. */
function readArgs(): string[] {
  try {
    return parseArgs({ allowPositionals: true, strict: true }).positionals;
  } catch (err) {
    const message = (err as { message?: string }).message ?? String(err);
    process.stderr.write(
      `${message}\nusage: memory-churn-runner.ts <repository> <model> <versions> <cycles>\n`,
    );
    process.exit(2);
  }
}

if (require.main === module) {
  const [root = '', model = '', versions = '1', cycles = '8'] = readArgs();
  churn(root, model, Number(versions), Number(cycles)).then(
    (report) => process.stdout.write(`${JSON.stringify(report)}\n`),
    (err: unknown) => {
      process.stderr.write(`${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
