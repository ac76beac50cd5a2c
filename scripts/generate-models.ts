/**
 * `npm run models [-- --size tiny|small] [--out <dir>] [--force] [--check]`
 *
 * Writes the deterministic demo model repository: per model config.pbtxt and
 * labels.txt, per version model.onnx, preprocess.json and tokenizer.json.
 * Without --force only missing (or stale) model.onnx files are built.
 * --check builds everything in memory and exits 1 listing any file that
 * regenerating would change; it writes nothing.
 */
import { resolve } from 'node:path';
import { UsageError, parseCliArgs } from './cli-args';
import { isModelSize, type ModelSize } from './models/bert-dimensions';
import { ModelRepositoryWriter } from './models/model-repository.writer';
import { readWordListFile, WORD_LIST_PATH } from './models/word-list';

export interface CliOptions {
  size: ModelSize;
  outDir: string;
  force: boolean;
  check: boolean;
}

export const MODELS_USAGE =
  'usage: npm run models -- [--size tiny|small] [--out <dir>] [--force] [--check]';

/**
 * The command line; `'help'` for --help. A bad one throws a UsageError naming the flag, with the
 * usage (this command has always exited 1 for it, as for any other failure).
 */
export function parseModelsArgs(argv: string[]): CliOptions | 'help' {
  let values;
  try {
    values = parseCliArgs({
      args: argv,
      options: {
        size: { type: 'string', default: 'tiny' },
        out: { type: 'string', default: 'model_repository' },
        force: { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${err.message}\n${MODELS_USAGE}`);
  }
  if (values.help) return 'help';
  const { size, out: outDir, force, check } = values;
  if (!isModelSize(size)) {
    throw new UsageError(`--size must be tiny or small, got "${size}"\n${MODELS_USAGE}`);
  }
  return { size, outDir, force, check };
}

async function runCheck(writer: ModelRepositoryWriter, outDir: string): Promise<number> {
  const stale = await writer.check();
  if (stale.length === 0) {
    process.stdout.write(`models: ${outDir} is exactly what the generator writes\n`);
    return 0;
  }
  process.stderr.write(
    `models: regenerating ${outDir} would change:\n${stale.map((p) => `  ${p}\n`).join('')}`,
  );
  process.stderr.write(
    'run `npm run models -- --force` (add --out/--size as used) and commit the result\n',
  );
  return 1;
}

async function runGenerate(writer: ModelRepositoryWriter, options: CliOptions): Promise<number> {
  const log = (line: string): void => void process.stdout.write(`models: ${line}\n`);
  const report = await writer.generate(options.force, log);
  report.filesWritten.forEach((path) => log(`wrote ${path}`));
  log(
    `${report.modelsGenerated.length} model(s) generated, ${report.modelsKept.length} kept; ` +
      `${report.filesWritten.length} file(s) written, ${report.filesUnchanged.length} unchanged`,
  );
  return 0;
}

async function main(): Promise<number> {
  const options = parseModelsArgs(process.argv.slice(2));
  if (options === 'help') {
    process.stdout.write(`${MODELS_USAGE}\n`);
    return 0;
  }
  const started = performance.now();
  const outDir = resolve(options.outDir);
  const vocab = readWordListFile(WORD_LIST_PATH);
  const writer = new ModelRepositoryWriter({ outDir, size: options.size, vocab });
  process.stdout.write(
    `models: ${options.size} models, vocabulary ${vocab.length} tokens, into ${outDir}\n`,
  );
  const code = options.check
    ? await runCheck(writer, options.outDir)
    : await runGenerate(writer, options);
  process.stdout.write(`models: done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return code;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`models: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
