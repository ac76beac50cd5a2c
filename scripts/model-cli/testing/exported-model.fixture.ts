import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBertOnnx, type BertModelSpec } from '../../models/bert-onnx';

/**
 * What a team brings to `mesh model add`, made from the project's own generator: a demo model
 * stripped to model.onnx + tokenizer.json + labels.txt, or a small freshly generated graph
 * with the axes a careless export would have. No downloads.
 */

export const ROOT = join(__dirname, '..', '..', '..');
export const DEMO = join(ROOT, 'model_repository');

export interface ExportedFiles {
  dir: string;
  onnx: string;
  tokenizer: string;
  labels: string;
}

/** Copies `<demo model>/<version>/model.onnx`, its tokenizer.json and the model's labels.txt. */
export function stripDemoModel(dir: string, model = 'sentiment-en', version = 1): ExportedFiles {
  mkdirSync(dir, { recursive: true });
  const src = join(DEMO, model);
  const files = {
    dir,
    onnx: join(dir, 'model.onnx'),
    tokenizer: join(dir, 'tokenizer.json'),
    labels: join(dir, 'labels.txt'),
  };
  copyFileSync(join(src, String(version), 'model.onnx'), files.onnx);
  copyFileSync(join(src, String(version), 'tokenizer.json'), files.tokenizer);
  if (existsSync(join(src, 'labels.txt'))) copyFileSync(join(src, 'labels.txt'), files.labels);
  return files;
}

export interface VariantOptions {
  /** Input axes, e.g. `{ batch: 1, sequence: 512 }` as a TorchScript-era export has. */
  axes?: BertModelSpec['axes'];
  numLabels?: number;
  /** The demo vocabulary's size when the model must run with the demo tokenizer. */
  vocabSize?: number;
  maskPenalty?: number;
}

/**
 * A tiny classifier graph from the generator (hidden size 8), with the axes or the attention
 * masking of a careless export. Few weights: quick to build, inspect and run.
 */
export function writeVariantModel(path: string, options: VariantOptions): string {
  const spec: BertModelSpec = {
    name: 'variant',
    seed: `variant@${JSON.stringify(options)}`,
    vocabSize: options.vocabSize ?? 64,
    dims: { layers: 1, hidden: 8, heads: 2, intermediate: 16, maxPositions: 512, typeVocabSize: 2 },
    head: { kind: 'classification', numLabels: options.numLabels ?? 3 },
    axes: options.axes,
    maskPenalty: options.maskPenalty,
  };
  writeFileSync(path, buildBertOnnx(spec));
  return path;
}

/** Entries in a tokenizer.json's WordPiece vocabulary. */
export function vocabularySize(tokenizerJson: string): number {
  const json = JSON.parse(readFileSync(tokenizerJson, 'utf8')) as { model: { vocab: object } };
  return Object.keys(json.model.vocab).length;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run mesh -- model <args>` as its own process, as a user or CI would. */
export function runModelCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', 'run-ts.js'), join(ROOT, 'scripts', 'mesh.ts'), 'model', ...args],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The `model add` flags for exported files; `extra` adds or overrides flags. */
export function addArgs(
  repository: string,
  name: string,
  files: ExportedFiles,
  extra: string[] = [],
): string[] {
  return [
    'add',
    '--repository',
    repository,
    '--name',
    name,
    '--onnx',
    files.onnx,
    '--tokenizer',
    files.tokenizer,
    '--labels',
    files.labels,
    ...extra,
  ];
}
