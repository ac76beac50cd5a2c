import {
  copyFileSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { memoryParameterKey, setModelConfigParameter } from '@mesh/model-repository';

export interface ModelCopiesOptions {
  /** A model directory of a repository (Triton layout), e.g. model_repository/sentiment-en. */
  source: string;
  /** Repository the copies are written into. */
  outDir: string;
  /** Names of the copies (each a directory and the config's `name`). */
  names: readonly string[];
  /** The version directories copied (default: all of them). */
  versions?: readonly number[];
  /** Written as `memory_mb_v<N>` for every copied version, when set (as `mesh model add` would). */
  memoryMb?: number;
}

/**
 * Copies one generated model under new names: the cheapest way to a catalog of many models for
 * placement tests and benchmarks. The files stay byte-identical (same manifest sha; the ONNX
 * file is hard-linked where the file system allows, so forty copies cost no disk); only the
 * config's `name` changes, and optionally a declared footprint per version is added.
 */
export function writeModelCopies(options: ModelCopiesOptions): void {
  const config = readFileSync(join(options.source, 'config.pbtxt'), 'utf8');
  const entries = readdirSync(options.source, { withFileTypes: true });
  const versions = entries
    .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
    .map((e) => Number(e.name))
    .filter((v) => !options.versions || options.versions.includes(v));
  const topFiles = entries.filter((e) => e.isFile() && e.name !== 'config.pbtxt');
  for (const name of options.names) {
    const dir = join(options.outDir, name);
    mkdirSync(dir, { recursive: true });
    for (const f of topFiles) copyFileSync(join(options.source, f.name), join(dir, f.name));
    for (const v of versions) copyVersion(join(options.source, String(v)), join(dir, String(v)));
    const file = join(dir, 'config.pbtxt');
    let text = config.replace(/^name:\s*"[^"]*"/m, `name: "${name}"`);
    if (options.memoryMb !== undefined) {
      for (const v of versions) {
        text = setModelConfigParameter(text, file, memoryParameterKey(v), String(options.memoryMb));
      }
    }
    writeFileSync(file, text);
  }
}

function copyVersion(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(from, { withFileTypes: true })) {
    if (!f.isFile()) continue;
    if (f.name.endsWith('.onnx')) {
      try {
        linkSync(join(from, f.name), join(to, f.name));
        continue;
      } catch {
        // another file system (or links refused): copy instead
      }
    }
    copyFileSync(join(from, f.name), join(to, f.name));
  }
}
