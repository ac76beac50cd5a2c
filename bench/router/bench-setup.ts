import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setModelConfigParameter } from '@mesh/model-repository';
import { ROOT } from './bench-processes';

function run(what: string, args: string[]): void {
  process.stdout.write(`bench: ${what}\n`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status})`);
}

/** A fresh clone has neither dist/ nor the generated bench models: make both. */
export function ensureBuiltAndGenerated(models: string, model: string): void {
  const mains = [
    'dist/apps/model-host/src/main.js',
    'dist/apps/router/src/main.js',
    'dist/bench/router/naive-peer.server.js',
    'dist/bench/router/raw-ort.worker.js',
  ];
  if (!mains.every((m) => existsSync(join(ROOT, m)))) {
    run('building (npm run build)', [
      join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
    ]);
    run('rewriting path aliases', [
      join(ROOT, 'node_modules', 'tsc-alias', 'dist', 'bin', 'index.js'),
      '-p',
      'tsconfig.build.json',
    ]);
  }
  if (!existsSync(join(models, model, 'config.pbtxt'))) {
    run(`generating the small models into ${models}`, [
      join(ROOT, 'scripts', 'run-ts.js'),
      'scripts/generate-models.ts',
      '--size',
      'small',
      '--out',
      models,
    ]);
  }
}

/**
 * A private repository: one model's directory whose config.pbtxt gets extra parameters (and
 * optionally another instance count), so two hosts can serve the same model file under
 * different batching rules.
 */
export function repositoryVariant(
  models: string,
  model: string,
  parameters: Record<string, string>,
  options: { instances?: number; rewrite?: (config: string) => string } = {},
): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'bench-repo-'));
  // Everything but the edited config.pbtxt is only read: link it instead of copying 100s of MB.
  for (const other of readdirSync(models)) {
    if (other !== model) symlinkSync(join(models, other), join(root, other));
  }
  mkdirSync(join(root, model));
  for (const entry of readdirSync(join(models, model))) {
    if (entry !== 'config.pbtxt') symlinkSync(join(models, model, entry), join(root, model, entry));
  }
  const file = join(root, model, 'config.pbtxt');
  let text = readFileSync(join(models, model, 'config.pbtxt'), 'utf8');
  if (options.rewrite) text = options.rewrite(text);
  for (const [k, v] of Object.entries(parameters)) text = setModelConfigParameter(text, file, k, v);
  if (options.instances !== undefined) {
    const counted = text.replace(
      /(instance_group\s*\[\s*\{[^}]*?count:\s*)\d+/,
      `$1${options.instances}`,
    );
    if (counted === text) throw new Error(`${file}: no instance_group count to set`);
    text = counted;
  }
  writeFileSync(file, text);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * The bench model's config as Triton users write it: one CPU instance, a 2 ms queue delay and
 * no mesh parameters (no dispatch, balancing, padding, ordering or thread settings). Only the
 * model_sha256 pins stay: the router routes to a backend only when they match its manifest.
 */
export function asUsersWriteIt(text: string): string {
  const pins = [...text.matchAll(/parameters\s*\{\s*key:\s*"(model_sha256[^"]*)"[^}]*\}\s*\}/g)];
  const head = text
    .replace(/parameters\s*\{[^{}]*\{[^{}]*\}\s*\}/g, '')
    .replace(/dynamic_batching\s*\{[^}]*\}/, '')
    .replace(/instance_group\s*\[[^\]]*\]/, '')
    .trim();
  return [
    head,
    'instance_group [ { count: 1 kind: KIND_CPU } ]',
    'dynamic_batching { max_queue_delay_microseconds: 2000 }',
    ...pins.map((m) => m[0]),
    '',
  ].join('\n');
}
