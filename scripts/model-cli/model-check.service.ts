import { join } from 'node:path';
import {
  CONFIG_FILE,
  memoryParameterKey,
  memoryParameterProblems,
  ModelRepositoryReader,
  type ModelEntry,
} from '@mesh/model-repository';
import { ModelCliError } from './model-cli.errors';
import { validateVersion, type VersionReport } from './version.validator';

export interface ModelCheckReport {
  model: string;
  /** Problems of the model itself (config, labels); versions are not checked then. */
  problems: string[];
  warnings: string[];
  versions: VersionReport[];
}

async function checkEntry(entry: ModelEntry): Promise<ModelCheckReport> {
  const report: ModelCheckReport = {
    model: entry.name,
    problems: [],
    warnings: [...entry.warnings],
    versions: [],
  };
  if (entry.error || !entry.config) {
    report.problems.push(entry.error ?? 'config.pbtxt cannot be read');
    return report;
  }
  if (entry.versionsOnDisk.length === 0) report.problems.push('the model has no version directory');
  // A bad footprint would size every placement of the model wrong: refused like a bad hash.
  const file = `${entry.name}/${CONFIG_FILE}`;
  report.problems.push(...memoryParameterProblems(entry.config).map((p) => `${file}: ${p}`));
  for (const version of entry.versionsOnDisk) {
    const v = await validateVersion({
      model: entry.name,
      version,
      dir: join(entry.dir, String(version)),
      config: entry.config,
      labels: entry.labels,
    });
    if (entry.config.parameters[memoryParameterKey(version)] === undefined) {
      v.notes.push(
        `config.pbtxt has no ${memoryParameterKey(version)} parameter: placers estimate its memory from the file size (mesh model add measures it)`,
      );
    }
    if (!entry.versionsSelected.includes(version)) {
      v.notes.push('not selected by the version_policy (on disk, not served at startup)');
    }
    report.versions.push(v);
  }
  return report;
}

/**
 * `mesh model check`: every version on disk of every model (or of `name`), through the same
 * validation `model add` runs before it writes.
 */
export async function checkRepository(root: string, name?: string): Promise<ModelCheckReport[]> {
  const reader = new ModelRepositoryReader(root);
  let entries: ModelEntry[];
  try {
    if (name === undefined) {
      entries = await reader.readAll();
    } else {
      const entry = await reader.readModel(name);
      if (!entry)
        throw new ModelCliError(
          'MODEL_UNREADABLE',
          `${root} has no model '${name}' (no ${name}/config.pbtxt)`,
        );
      entries = [entry];
    }
  } catch (err: unknown) {
    if (err instanceof ModelCliError) throw err;
    throw new ModelCliError('MODEL_UNREADABLE', (err as Error).message);
  }
  if (entries.length === 0) throw new ModelCliError('MODEL_UNREADABLE', `${root} holds no model`);
  const reports: ModelCheckReport[] = [];
  for (const entry of entries) reports.push(await checkEntry(entry));
  return reports;
}

export function problemCount(reports: readonly ModelCheckReport[]): number {
  return reports.reduce(
    (n, r) => n + r.problems.length + r.versions.reduce((m, v) => m + v.problems.length, 0),
    0,
  );
}
