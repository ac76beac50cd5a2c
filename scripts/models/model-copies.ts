import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setModelConfigParameter } from '@mesh/model-repository';
import { memoryParamName } from '@mesh/placement';

export interface ModelCopiesOptions {
  /** A model directory of a repository (Triton layout), e.g. model_repository/sentiment-en. */
  source: string;
  /** Repository the copies are written into. */
  outDir: string;
  /** Names of the copies (each a directory and the config's `name`). */
  names: readonly string[];
  /** Written as `memory_mb_v<N>` for every version, when set (as `mesh model add` would). */
  memoryMb?: number;
}

/**
 * Copies one generated model under new names: the cheapest way to a catalog of many models for
 * placement tests and benchmarks. The files stay byte-identical (same manifest sha); only the
 * config's `name` changes, and optionally a declared footprint per version is added.
 */
export function writeModelCopies(options: ModelCopiesOptions): void {
  const config = readFileSync(join(options.source, 'config.pbtxt'), 'utf8');
  const versions = readdirSync(options.source, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
    .map((e) => Number(e.name));
  for (const name of options.names) {
    const dir = join(options.outDir, name);
    cpSync(options.source, dir, { recursive: true });
    let text = config.replace(/^name:\s*"[^"]*"/m, `name: "${name}"`);
    const file = join(dir, 'config.pbtxt');
    if (options.memoryMb !== undefined) {
      for (const v of versions) {
        text = setModelConfigParameter(text, file, memoryParamName(v), String(options.memoryMb));
      }
    }
    writeFileSync(file, text);
  }
}
