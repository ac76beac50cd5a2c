import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelConfigParseError } from './model-config.errors';
import { parseModelConfigDetailed } from './model-config.parser';
import type { ModelConfig } from './model-config.types';
import { ModelRepositoryError } from './model-repository.errors';
import { missingVersions, selectVersions } from './version-policy';

export const CONFIG_FILE = 'config.pbtxt';

/** One model directory as found on disk. `error` set means the model cannot be served. */
export interface ModelEntry {
  name: string;
  dir: string;
  /** Present whenever config.pbtxt parsed, even if a later check set `error`. */
  config?: ModelConfig;
  error?: string;
  /** Label lines per output name, for outputs with a label_filename. */
  labels?: Record<string, string[]>;
  /** Numeric version directories, ascending. */
  versionsOnDisk: number[];
  /** What the version policy serves of versionsOnDisk (empty when `error` is set). */
  versionsSelected: number[];
  /** Tolerated oddities worth a log line (ignored fields, policy versions not on disk). */
  warnings: string[];
}

const VERSION_DIR = /^[1-9][0-9]*$/;

function errorText(error: unknown): string {
  if (isMissing(error)) return 'file not found';
  // Node's fs errors may come from another realm (e.g. under Jest), so no instanceof here.
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Splits labels.txt into lines: one label per line, a final newline does not add a label. */
export function parseLabels(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Reads a Triton model repository (`<root>/<model>/config.pbtxt`, `<root>/<model>/<version>/`).
 * A broken model is reported in its entry with the reason; it never fails the whole scan.
 */
export class ModelRepositoryReader {
  constructor(readonly root: string) {}

  /** Names of the directories under root that hold a config.pbtxt, sorted. */
  async listModels(): Promise<string[]> {
    const names = (await this.readRoot()).filter((n) => !n.startsWith('.'));
    const flags = await Promise.all(names.map((n) => this.hasConfig(n)));
    return names.filter((_, i) => flags[i]).sort();
  }

  async readAll(): Promise<ModelEntry[]> {
    const names = await this.listModels();
    const entries = await Promise.all(names.map((n) => this.readModel(n)));
    return entries.filter((e): e is ModelEntry => e !== undefined);
  }

  /** One model by directory name; undefined when there is no such model directory. */
  async readModel(name: string): Promise<ModelEntry | undefined> {
    if (!/^[^/\\]+$/.test(name) || name.startsWith('.')) return undefined;
    const dir = join(this.root, name);
    let text: string;
    try {
      text = await readFile(join(dir, CONFIG_FILE), 'utf8');
    } catch (error: unknown) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      return this.failed(name, dir, [], `${name}/${CONFIG_FILE}: cannot read: ${errorText(error)}`);
    }
    const versionsOnDisk = await this.versionsOnDisk(dir);
    try {
      return await this.describe(name, dir, text, versionsOnDisk);
    } catch (error: unknown) {
      if (!(error instanceof ModelConfigParseError)) throw error;
      return this.failed(name, dir, versionsOnDisk, error.message);
    }
  }

  private async describe(
    name: string,
    dir: string,
    text: string,
    versionsOnDisk: number[],
  ): Promise<ModelEntry> {
    const file = `${name}/${CONFIG_FILE}`;
    const { config, ignoredFields } = parseModelConfigDetailed(text, file);
    const warnings = ignoredFields.map(
      (f) => `${file}:${f.line}:${f.column}: field '${f.path}' is not used by the mesh (ignored)`,
    );
    for (const v of missingVersions(config.versionPolicy, versionsOnDisk)) {
      warnings.push(`${file}: version ${v} named by version_policy has no directory`);
    }
    // As in Triton: an empty name means "the directory name"; any other name must match it.
    if (config.name === '') config.name = name;
    const entry: ModelEntry = { name, dir, config, versionsOnDisk, versionsSelected: [], warnings };
    if (config.name !== name) {
      entry.error = `${file}: name '${config.name}' does not match the model directory '${name}'`;
      return entry;
    }
    const labels = await this.readLabels(name, dir, config);
    if (typeof labels === 'string') {
      entry.error = labels;
      return entry;
    }
    if (Object.keys(labels).length > 0) entry.labels = labels;
    entry.versionsSelected = selectVersions(config.versionPolicy, versionsOnDisk);
    return entry;
  }

  /** Labels per output, or the error text for the first unreadable label file. */
  private async readLabels(
    name: string,
    dir: string,
    config: ModelConfig,
  ): Promise<Record<string, string[]> | string> {
    const labels: Record<string, string[]> = {};
    for (const output of config.output) {
      if (!output.labelFilename) continue;
      try {
        labels[output.name] = parseLabels(await readFile(join(dir, output.labelFilename), 'utf8'));
      } catch (error: unknown) {
        return `${name}: label file '${output.labelFilename}' of output '${output.name}' cannot be read: ${errorText(error)}`;
      }
    }
    return labels;
  }

  private async versionsOnDisk(dir: string): Promise<number[]> {
    // A directory that vanished mid-scan simply has no versions; its config already read.
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const candidates = entries.filter((e) => VERSION_DIR.test(e.name));
    const isDir = await Promise.all(
      candidates.map(
        async (e) =>
          e.isDirectory() || (e.isSymbolicLink() && (await this.isDirectory(join(dir, e.name)))),
      ),
    );
    return candidates
      .filter((_, i) => isDir[i])
      .map((e) => Number(e.name))
      .filter((v) => Number.isSafeInteger(v))
      .sort((a, b) => a - b);
  }

  private async isDirectory(path: string): Promise<boolean> {
    try {
      return (await stat(path)).isDirectory();
    } catch {
      return false;
    }
  }

  private async hasConfig(name: string): Promise<boolean> {
    try {
      return (await stat(join(this.root, name, CONFIG_FILE))).isFile();
    } catch {
      return false;
    }
  }

  private async readRoot(): Promise<string[]> {
    try {
      return await readdir(this.root);
    } catch (error: unknown) {
      const code = isMissing(error) ? 'REPOSITORY_NOT_FOUND' : 'REPOSITORY_UNREADABLE';
      throw new ModelRepositoryError(
        code,
        this.root,
        `model repository '${this.root}' cannot be read: ${errorText(error)}`,
      );
    }
  }

  private failed(name: string, dir: string, versionsOnDisk: number[], error: string): ModelEntry {
    return { name, dir, error, versionsOnDisk, versionsSelected: [], warnings: [] };
  }
}
