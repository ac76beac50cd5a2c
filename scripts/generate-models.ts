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
import { isModelSize, type ModelSize } from './models/bert-dimensions';
import { ModelRepositoryWriter } from './models/model-repository.writer';
import { readWordListFile, WORD_LIST_PATH } from './models/word-list';

interface CliOptions {
  size: ModelSize;
  outDir: string;
  force: boolean;
  check: boolean;
}

const USAGE = 'usage: npm run models -- [--size tiny|small] [--out <dir>] [--force] [--check]';

function parseArgs(argv: string[]): CliOptions {
  const options: CliOptions = {
    size: 'tiny',
    outDir: 'model_repository',
    force: false,
    check: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[(i += 1)];
      if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
      return next;
    };
    if (arg === '--force') options.force = true;
    else if (arg === '--check') options.check = true;
    else if (arg === '--out') options.outDir = value();
    else if (arg === '--size') {
      const size = value();
      if (!isModelSize(size))
        throw new Error(`--size must be tiny or small, got "${size}"\n${USAGE}`);
      options.size = size;
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else throw new Error(`unknown argument "${arg}"\n${USAGE}`);
  }
  return options;
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
  const options = parseArgs(process.argv.slice(2));
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

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`models: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
