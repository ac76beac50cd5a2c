import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, ROOT } from './cluster';
import { writeReport } from './report';
import { clientsScenario } from './scenarios/clients.scenario';
import { fuzzScenario } from './scenarios/fuzz.scenario';
import { hostKillScenario } from './scenarios/host-kill.scenario';
import { routerRestartScenario } from './scenarios/router-restart.scenario';
import { redisScenario } from './scenarios/redis.scenario';
import { workerCoordinatorScenario } from './scenarios/worker-coordinator.scenario';
import { overloadScenario } from './scenarios/overload.scenario';
import { soakScenario } from './scenarios/soak.scenario';
import { isolationScenario } from './scenarios/isolation.scenario';
import {
  clusterBulkScenario,
  clusterRolloutScenario,
  sentinelScenario,
} from './scenarios/redis-failover.scenario';
import type { ChaosContext, ChaosScenario, ScenarioResult } from './scenario';
import { UsageError, parseCliArgs } from '../../scripts/cli-args';

/**
 * `npm run chaos [-- --quick] [-- --only id,id]`: runs the resilience scenarios one after the
 * other against real processes on loopback and writes docs/reliability.{md,json} (a partial
 * run with --only writes .run/chaos/ instead, so it never replaces the full report).
 * Exit code 1 when a scenario failed.
 */

/** Scenarios in run order. Overload runs before the soak, which holds 80 % of its saturation. */
export const SCENARIOS: ChaosScenario[] = [
  hostKillScenario,
  routerRestartScenario,
  redisScenario,
  workerCoordinatorScenario,
  overloadScenario,
  soakScenario,
  clientsScenario,
  fuzzScenario,
  isolationScenario,
  clusterBulkScenario,
  clusterRolloutScenario,
  sentinelScenario,
];

/** Hard ceiling per scenario; past it the scenario is aborted and its processes killed. */
const BUDGET_MS = { quick: 60_000, full: 420_000 };

interface Args {
  quick: boolean;
  only?: string[];
  out?: string;
}

function parseArgs(argv: string[]): Args {
  let values;
  try {
    values = parseCliArgs({
      args: argv,
      options: { quick: { type: 'boolean' }, only: { type: 'string' }, out: { type: 'string' } },
    }).values;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${err.message} (use --quick, --only <id,...>, --out <dir>)`);
  }
  return {
    quick: values.quick ?? false,
    ...(values.only === undefined ? {} : { only: values.only.split(',').filter(Boolean) }),
    ...(values.out === undefined ? {} : { out: values.out }),
  };
}

function failedResult(s: ChaosScenario, err: unknown, ms: number): ScenarioResult {
  return {
    id: s.id,
    title: s.title,
    load: '—',
    faults: '—',
    requests: { sent: 0, failed: 0, failedDetail: {} },
    dataLost: 0,
    fixes: [],
    figures: { elapsedS: Math.round(ms / 1000) },
    passed: false,
    notes: `scenario did not complete: ${err instanceof Error ? err.message.split('\n').slice(0, 6).join(' / ') : String(err)}`,
  };
}

export async function runScenarios(
  scenarios: readonly ChaosScenario[],
  quick: boolean,
): Promise<ScenarioResult[]> {
  const shared = new Map<string, unknown>();
  const results: ScenarioResult[] = [];
  for (const s of scenarios) {
    const tmpDir = mkdtempSync(join(tmpdir(), `chaos-${s.id}-`));
    const clusters: Cluster[] = [];
    const abort = new AbortController();
    const started = Date.now();
    const budgetMs = (s.budgetMs ?? BUDGET_MS)[quick ? 'quick' : 'full'];
    const ctx: ChaosContext = {
      quick,
      tmpDir,
      shared,
      signal: abort.signal,
      log: (msg) =>
        process.stderr.write(`[${s.id} +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`),
      cluster: (prefix = `chaos-${s.id}`) => {
        const c = new Cluster(join(tmpDir, `cluster-${clusters.length}`), prefix);
        clusters.push(c);
        return c;
      },
    };
    ctx.log(`start: ${s.title}`);
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new Error(`over its ${budgetMs / 1000} s budget`));
      }, budgetMs);
    });
    let result: ScenarioResult;
    try {
      result = await Promise.race([s.run(ctx), overrun]);
    } catch (err) {
      result = failedResult(s, err, Date.now() - started);
    } finally {
      clearTimeout(timer);
      abort.abort();
      await Promise.all(clusters.map((c) => c.stopAll()));
      rmSync(tmpDir, { recursive: true, force: true });
    }
    result.figures = { ...result.figures, elapsedS: Math.round((Date.now() - started) / 1000) };
    ctx.log(`${result.passed ? 'PASS' : 'FAIL'}${result.notes ? ` — ${result.notes}` : ''}`);
    results.push(result);
  }
  return results;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const unknown = (args.only ?? []).filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );
  }
  const chosen = args.only ? SCENARIOS.filter((s) => args.only!.includes(s.id)) : SCENARIOS;
  const startedAt = new Date().toISOString();
  const t0 = Date.now();
  const results = await runScenarios(chosen, args.quick);
  const outDir = args.out ?? (args.only ? join(ROOT, '.run', 'chaos') : join(ROOT, 'docs'));
  const files = await writeReport(
    ROOT,
    {
      mode: args.quick ? 'quick' : 'full',
      startedAt,
      durationS: Math.round((Date.now() - t0) / 1000),
      machine: `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}`,
    },
    results,
    outDir,
  );
  const failed = results.filter((r) => !r.passed);
  process.stderr.write(
    `\nchaos: ${results.length - failed.length} passed, ${failed.length} failed in ${Math.round((Date.now() - t0) / 1000)} s; wrote ${files.md}\n`,
  );
  if (failed.length) process.exitCode = 1;
}

if (require.main === module) {
  // Exit (and so kill every started process, see cluster.ts) on Ctrl-C or a stop request.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => process.exit(130));
  main().catch((err: unknown) => {
    process.stderr.write(`chaos: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
