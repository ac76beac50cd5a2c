/**
 * `npm run bench:bulk [-- --quick]`: bulk jobs (docs/benchmarks/bulk.{json,md}): raw-ORT
 * ceiling (before and after the jobs), one job of 200k short items (20k with --quick) with 1
 * and 2 workers (items/s, ratio to the ceiling, time to the 202 and to the first result, Redis
 * peak per 100k items), single-predict latency at c=4 without a job and during a third job of
 * its own, and the six-large-batches contention case.
 *   --render <file.json>   writes the Markdown of a saved report again (with its `analysis`).
 *   --contention-only --dist-root <checkout> --label <name>   only the online-vs-large-batch
 *     case, against another checkout's build (e.g. the state before a change).
 * Requires `npm run build` and `npm run models -- --size small --out .bench-models`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCorpus } from '../router/bench-corpus';
import { ROOT } from './bench-mesh';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseCliArgs } from '../../scripts/cli-args';
import { runContention } from './contention.arm';
import { rawCeiling } from './raw-ceiling';
import { renderBulk, type BulkReport } from './bulk-report';
import { repositoryVariant } from '../router/bench-setup';
import { runThroughput } from './throughput.arm';

/** The command line (strict: an unknown flag or a missing value is refused, naming it). */
function readArgs(argv: string[]) {
  return parseCliArgs({
    args: argv,
    options: {
      'contention-models': { type: 'string' },
      'dist-root': { type: 'string' },
      instances: { type: 'string' },
      items: { type: 'string' },
      label: { type: 'string' },
      models: { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
      reserve: { type: 'string' },
      'contention-only': { type: 'boolean' },
      quick: { type: 'boolean' },
    },
  }).values;
}

function log(message: string): void {
  process.stderr.write(`bench:bulk: ${message}\n`);
}

async function main(): Promise<void> {
  const flags = readArgs(process.argv.slice(2));
  if (flags.render !== undefined) {
    const report = JSON.parse(readFileSync(flags.render, 'utf8')) as BulkReport;
    writeFileSync(flags.render.replace(/\.json$/, '.md'), renderBulk(report));
    log(`wrote ${flags.render.replace(/\.json$/, '.md')}`);
    return;
  }
  const quick = flags.quick ?? false;
  const models = flags.models ?? join(ROOT, '.bench-models');
  const out = flags.out ?? join(ROOT, 'docs', 'benchmarks');
  const texts = buildCorpus('short', 512);
  if (flags['contention-only'] ?? false) {
    const distRoot = flags['dist-root'] ?? ROOT;
    const label = flags.label ?? 'current';
    const result = await runContention({
      distRoot,
      models: flags['contention-models'] ?? models,
      prefix: `bench-bulk-${process.pid}`,
      task: 'intent',
      texts,
      seconds: quick ? 5 : 15,
      log,
    });
    mkdirSync(out, { recursive: true });
    const file = join(out, `bulk-contention-${label}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ label, at: new Date().toISOString(), ...result }, null, 2)}\n`,
    );
    log(`wrote ${file}`);
    return;
  }
  const items = Number(flags.items ?? (quick ? 20_000 : 200_000));
  const prefix = `bench-bulk-${process.pid}`;
  log(`raw ORT ceiling on intent-zh v2 (${models})`);
  const ceiling = await rawCeiling(models, 'intent-zh', 2, texts, quick ? 3 : 8);
  log(`ceiling ${ceiling.bestItemsPerSecond} items/s`);
  // The host serving bulk and online traffic together: by default two 1-thread instances, one
  // kept for online requests while they arrive (top_priority_reserved_instances).
  const instances = Number(flags.instances ?? 2);
  const reserved = flags.reserve ?? '1';
  const served = repositoryVariant(
    models,
    'intent-zh',
    { top_priority_reserved_instances: reserved },
    { instances },
  );
  log(`host: ${instances} instance(s), ${reserved} reserved for online traffic`);
  const runs = [];
  try {
    // Throughput is timed on jobs that have the cores to themselves; the online probe's
    // requests run beside a job of their own, so they cost that job and not the ratio's.
    const plan = [
      { workers: 1, probeSeconds: 0 },
      { workers: 2, probeSeconds: 0 },
      { workers: 1, probeSeconds: quick ? 5 : 15 },
    ];
    for (const [i, { workers, probeSeconds }] of plan.entries()) {
      log(`bulk job: ${items} items, ${workers} worker(s)${probeSeconds ? ', online probe' : ''}`);
      runs.push(
        await runThroughput({
          models: served.root,
          prefix: `${prefix}-r${i}`,
          workers,
          texts,
          items,
          probeSeconds,
          log,
        }),
      );
    }
  } finally {
    served.remove();
  }
  // The ceiling again after the jobs: a shared machine drifts, and the better of the two
  // measurements is the ceiling the ratios are taken against.
  const after = await rawCeiling(models, 'intent-zh', 2, texts, quick ? 3 : 8);
  log(`ceiling after the jobs ${after.bestItemsPerSecond} items/s`);
  const better = after.bestItemsPerSecond > ceiling.bestItemsPerSecond ? after : ceiling;
  const best = better.bestItemsPerSecond;
  const contention = await runContention({
    distRoot: ROOT,
    models: flags['contention-models'] ?? join(ROOT, 'model_repository'),
    prefix: `${prefix}-c`,
    task: 'intent',
    texts,
    seconds: quick ? 5 : 15,
    log,
  });
  const report = {
    at: new Date().toISOString(),
    quick,
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      loadavg: loadavg(),
      node: process.version,
    },
    model: 'intent-zh v2 (small, bert-wordpiece@2, dynamic padding), short texts',
    host: `${instances} instance(s) × ${Math.max(1, Math.floor(availableParallelism() / instances))} intra-op thread(s), top_priority_reserved_instances ${reserved}`,
    ceiling: { ...better, before: ceiling, after },
    runs: runs.map((r) => ({
      ...r,
      ratioToRawOrt: Math.round((r.itemsPerSecond / best) * 100) / 100,
    })),
    contention,
  };
  mkdirSync(out, { recursive: true });
  const name = quick ? 'bulk-quick' : 'bulk';
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(out, `${name}.md`), renderBulk(report));
  log(`wrote ${join(out, name)}.{json,md}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
