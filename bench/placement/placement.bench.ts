import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import type { BackendLedger, PlacementDecision } from '@mesh/placement';
import { writeModelCopies } from '../../scripts/models/model-copies';
import { medianOf } from '../router/bench-measure';
import { ROOT, type BenchProcess } from '../router/bench-processes';
import { ensureBuiltAndGenerated } from '../router/bench-setup';
import { TENANT_KEY, startArm, startHost, taskOf, writeSeed, type Arm } from './placement-mesh';
import { decisions, ledgers, measureLoad, rssMb } from './placement-probe';
import {
  renderMarkdown,
  round,
  summarizeRound,
  type ArmRound,
  type PlacementReport,
} from './placement-report';
import { drive, hotSet, rankStream, zipfWeights, type Sample } from './placement-traffic';

/**
 * Many models on a memory budget: N copies of the small generated model on two hosts whose
 * budgets hold about a quarter of them, against the same hosts holding every version, under
 * the same seeded Zipf traffic; rounds interleaved. Writes docs/benchmarks/placement.{json,md}.
 */

const SOURCE_MODEL = 'intent-zh';
const VERSION = 2;
const ZIPF_S = 1.1;

const log = (msg: string) => process.stdout.write(`bench:placement: ${msg}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      models: { type: 'string', default: join(ROOT, '.bench-models') },
      versions: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      out: { type: 'string', default: join(ROOT, 'docs', 'benchmarks') },
    },
  });
  const quick = values.quick === true;
  const int = (name: string, raw: string | undefined, fallback: number) => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  return {
    quick,
    models: values.models,
    versions: int('versions', values.versions, quick ? 12 : 40),
    seconds: int('seconds', values.seconds, quick ? 15 : 60),
    rounds: int('rounds', values.rounds, quick ? 1 : 2),
    concurrency: int('concurrency', values.concurrency, 8),
    out: values.out,
  };
}

/** Loads three copies one at a time on a scratch host: load time and measured footprint. */
async function measureVersions(repo: string, names: readonly string[]) {
  const host = await startHost('scratch-host', repo);
  try {
    const runs = [];
    for (const name of names.slice(0, 3)) runs.push(await measureLoad(host, name, VERSION));
    const footprints = runs.map((r) => r.footprintMb ?? r.rssDeltaMb);
    return {
      footprintMb: Math.ceil(Math.max(...footprints)),
      medianMs: medianOf(runs.map((r) => r.loadMs)),
      maxMs: Math.max(...runs.map((r) => r.loadMs)),
      rssDeltaMb: runs.map((r) => round(r.rssDeltaMb, 1)),
    };
  } finally {
    await host.stop();
  }
}

/** Samples the hosts' RSS and every ledger while a round runs. */
function watch(redis: RedisClient, arm: Arm): { stop(): Promise<{ rss: number; over: number }> } {
  let running = true;
  let maxRss = 0;
  let over = 0;
  const loop = (async () => {
    while (running) {
      maxRss = Math.max(
        maxRss,
        arm.hosts.reduce((s, h: BenchProcess) => s + rssMb(h.pid), 0),
      );
      for (const l of await ledgers(redis, arm.prefix).catch(() => [])) {
        if (l.budgetMb !== null && l.usedMb > l.budgetMb) over += 1;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { rss: maxRss, over };
    },
  };
}

async function waitAllResident(redis: RedisClient, arm: Arm, versions: number): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const resident = (await ledgers(redis, arm.prefix)).map((l) => l.resident.length);
    if (resident.length === arm.hosts.length && resident.every((n) => n >= versions)) return;
    log(`all-resident arm: ${resident.join(' + ') || 0} of ${versions} per host counted`);
    if (Date.now() > deadline) throw new Error(`all-resident arm never held ${versions} versions`);
    await new Promise((r) => setTimeout(r, 5000));
  }
}

/** Copies of each model across the arm's backends, as the ledgers count them. */
function copiesOf(all: readonly BackendLedger[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of all) for (const r of l.resident) out.set(r.model, (out.get(r.model) ?? 0) + 1);
  return out;
}

/**
 * Hot-set versions that some unload left resident nowhere: the audit replayed from the copies
 * counted at settle time (an unload of one of two copies leaves the version served).
 */
function evictedFromEverywhere(
  start: ReadonlyMap<string, number>,
  audit: readonly PlacementDecision[],
  hot: readonly string[],
): string[] {
  const copies = new Map(start);
  const out: string[] = [];
  for (const d of [...audit].sort((a, b) => a.at - b.at)) {
    const n = (copies.get(d.model) ?? 0) + (d.action === 'load' ? 1 : -1);
    copies.set(d.model, Math.max(0, n));
    if (d.action === 'unload' && n <= 0 && hot.includes(d.model)) {
      out.push(`${d.model}@${d.version} on ${d.backend} (${d.reason})`);
    }
  }
  return out;
}

async function runRound(
  redis: RedisClient,
  arm: Arm,
  kind: ArmRound['arm'],
  roundNo: number,
  models: readonly string[],
  weights: readonly number[],
  o: ReturnType<typeof options>,
): Promise<{ summary: ArmRound; samples: Sample[] }> {
  const probe = watch(redis, arm);
  const from = Date.now();
  const samples = await drive({
    routerUrl: arm.router.urls.http!,
    key: TENANT_KEY,
    models,
    taskOf,
    next: rankStream(weights, 1000 + roundNo),
    concurrency: o.concurrency,
    seconds: o.seconds,
  });
  const seen = await probe.stop();
  const minutes = (Date.now() - from) / 60_000;
  const audit = await decisions(redis, arm.prefix, from);
  const ledgerMb = (await ledgers(redis, arm.prefix)).reduce((s, l) => s + l.usedMb, 0);
  const summary = summarizeRound(
    {
      arm: kind,
      round: roundNo,
      seconds: o.seconds,
      loadsPerMinute: round(audit.filter((d) => d.action === 'load').length / minutes, 2),
      evictionsPerMinute: round(
        audit.filter((d) => d.action === 'unload' && d.reason === 'evict').length / minutes,
        2,
      ),
      rssMb: round(seen.rss, 1),
      ledgerMb: round(ledgerMb, 1),
      overBudget: seen.over,
    },
    samples,
  );
  log(
    `${kind} round ${roundNo}: ${summary.requests} requests, ${summary.failed} failed, warm p99 ${summary.warm.p99} ms, cold waits ${summary.coldWait.n} (p99 ${summary.coldWait.p99} ms), hit ${summary.hitRatio}`,
  );
  return { summary, samples };
}

function goals(r: PlacementReport): PlacementReport['goals'] {
  const placed = r.rounds.filter((x) => x.arm === 'placed');
  const all = r.rounds.filter((x) => x.arm === 'all-resident');
  // Round 1 of the placed arm starts cold; later rounds are the settled cache.
  const first = placed.length > 1 ? 1 : 0;
  const warmRatio = medianOf(
    placed.slice(first).map((p, i) => p.warm.p99 / all[first + i]!.latency.p99),
  );
  const coldP99 = Math.max(...placed.map((p) => (p.coldWait.n > 0 ? p.coldWait.p99 : 0)));
  const failed = r.rounds.reduce((s, x) => s + x.failed, 0);
  const over = r.rounds.reduce((s, x) => s + x.overBudget, 0);
  const aa = all.length > 1 ? all.map((x) => x.latency.p99) : [];
  return [
    {
      goal: 'warm p99 ≤ 1.2× the all-resident arm (settled rounds, median ratio)',
      measured: `${round(warmRatio, 3)}×${aa.length > 1 ? ` (all-resident p99 across rounds: ${aa.join(', ')} ms)` : ''}`,
      met: warmRatio <= 1.2,
    },
    {
      goal: `cold-start wait p99 ≤ load time + 1 s (${round(r.load.medianMs + 1000, 0)} ms)`,
      measured: `${round(coldP99, 1)} ms`,
      met: coldP99 <= r.load.medianMs + 1000,
    },
    { goal: '0 failed requests', measured: String(failed), met: failed === 0 },
    { goal: 'ledger never above budget', measured: `${over} samples above`, met: over === 0 },
    {
      goal: 'hot set never evicted (left resident nowhere) once settled',
      measured: `${r.hotSetEvictionsAfterSettle.length} evictions (${r.hotSetCopyUnloadsAfterSettle} unloads of one copy)`,
      met: r.hotSetEvictionsAfterSettle.length === 0,
    },
  ];
}

async function main(): Promise<void> {
  const o = options();
  const started = Date.now();
  ensureBuiltAndGenerated(o.models, SOURCE_MODEL);
  const repo = mkdtempSync(join(tmpdir(), 'placement-bench-'));
  const models = Array.from(
    { length: o.versions },
    (_, i) => `bench-${String(i + 1).padStart(2, '0')}`,
  );
  const source = join(o.models, SOURCE_MODEL);
  writeModelCopies({ source, outDir: repo, names: models, versions: [VERSION] });
  const load = await measureVersions(repo, models);
  log(`one version: ${load.footprintMb} MB, load ${round(load.medianMs, 0)} ms (median of 3)`);
  // Declared as `mesh model add` would, so both arms' ledgers count the measured footprint.
  writeModelCopies({
    source,
    outDir: repo,
    names: models,
    versions: [VERSION],
    memoryMb: load.footprintMb,
  });
  const seed = writeSeed(repo, models, VERSION);
  // Each host's budget holds about a quarter of the catalog (half of it across both hosts).
  const perHost = Math.max(1, Math.round(o.versions / 4));
  const budgetMb = perHost * load.footprintMb;
  const weights = zipfWeights(o.versions, ZIPF_S);
  const hot = hotSet(weights, 0.8).map((k) => models[k]!);
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'placement-bench',
  });
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const arms: Arm[] = [];
  try {
    const placed = await startArm({
      name: 'placed',
      prefix: `bench-placement-${run}-placed`,
      repo,
      seed,
      hosts: 2,
      budgetMb,
      minResidencyMs: 10_000,
    });
    arms.push(placed);
    const all = await startArm({
      name: 'all',
      prefix: `bench-placement-${run}-all`,
      repo,
      seed,
      hosts: 2,
      loadAll: true,
      minResidencyMs: 10_000,
    });
    arms.push(all);
    log(`waiting for the all-resident arm to load ${o.versions} versions on each host`);
    await waitAllResident(redis, all, o.versions);
    const rounds: ArmRound[] = [];
    let settledAt = 0;
    let settledCopies = new Map<string, number>();
    for (let i = 1; i <= o.rounds; i++) {
      rounds.push((await runRound(redis, placed, 'placed', i, models, weights, o)).summary);
      if (i === 1) {
        settledAt = Date.now();
        settledCopies = copiesOf(await ledgers(redis, placed.prefix));
      }
      rounds.push((await runRound(redis, all, 'all-resident', i, models, weights, o)).summary);
    }
    const settled = await decisions(redis, placed.prefix, settledAt);
    const hotEvictions = evictedFromEverywhere(settledCopies, settled, hot);
    const hotCopyUnloads = settled.filter(
      (d) => d.action === 'unload' && hot.includes(d.model),
    ).length;
    const report: PlacementReport = {
      name: 'placement',
      date: new Date().toISOString(),
      quick: o.quick,
      machine: {
        cores: availableParallelism(),
        cpu: cpus()[0]?.model ?? 'unknown',
        node: process.version,
      },
      catalog: {
        versions: o.versions,
        model: `${SOURCE_MODEL} v${VERSION} (small)`,
        footprintMb: load.footprintMb,
        budgetMbPerHost: budgetMb,
        hosts: 2,
        zipfS: ZIPF_S,
        hotSet: hot,
        concurrency: o.concurrency,
      },
      load: {
        medianMs: round(load.medianMs, 1),
        maxMs: round(load.maxMs, 1),
        rssDeltaMb: load.rssDeltaMb,
      },
      rounds,
      hotSetEvictionsAfterSettle: hotEvictions,
      hotSetCopyUnloadsAfterSettle: hotCopyUnloads,
      goals: [],
      durationSeconds: (Date.now() - started) / 1000,
    };
    report.goals = goals(report);
    mkdirSync(o.out, { recursive: true });
    const name = o.quick ? 'placement-quick' : 'placement';
    writeFileSync(join(o.out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(o.out, `${name}.md`), renderMarkdown(report));
    log(`wrote ${join(o.out, name)}.{json,md}`);
    process.stdout.write(renderMarkdown(report));
  } finally {
    await Promise.all(arms.map((a) => a.stop()));
    for (const a of arms) {
      const stale = await redis.keys(`${a.prefix}*`);
      if (stale.length > 0) await redis.del(...stale);
    }
    await closeRedis(redis);
    rmSync(repo, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench:placement failed: ${err instanceof Error ? err.stack : String(err)}\n`,
  );
  process.exit(1);
});
