/**
 * `npm run bench:bulk [-- --quick]`: bulk jobs (docs/benchmarks/bulk.{json,md}).
 *   --contention-only --dist-root <checkout> --label <name>   only the online-vs-large-batch
 *     case, against another checkout's build (e.g. the state before a change).
 * Requires `npm run build` and `npm run models -- --size small --out .bench-models`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCorpus } from '../router/bench-corpus';
import { ROOT } from './bench-mesh';
import { runContention } from './contention.arm';

function arg(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

function log(message: string): void {
  process.stderr.write(`bench:bulk: ${message}\n`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const models = arg(argv, '--models') ?? join(ROOT, '.bench-models');
  const out = arg(argv, '--out') ?? join(ROOT, 'docs', 'benchmarks');
  const texts = buildCorpus('short', 512);
  if (argv.includes('--contention-only')) {
    const distRoot = arg(argv, '--dist-root') ?? ROOT;
    const label = arg(argv, '--label') ?? 'current';
    const result = await runContention({
      distRoot,
      models: arg(argv, '--contention-models') ?? models,
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
  throw new Error('only --contention-only is implemented in this build');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
