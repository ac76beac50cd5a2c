import { join } from 'node:path';
import { ModelRepositoryReader, readPreprocessManifest, sha256File } from '@mesh/model-repository';
import type { Route } from './routing.types';

/** Why a route edit names something the repository cannot serve. */
export type RouteProblemCode =
  | 'UNKNOWN_MODEL'
  | 'MODEL_CONFIG_INVALID'
  | 'UNKNOWN_VERSION'
  | 'VERSION_NOT_SELECTED'
  | 'MANIFEST_INVALID';

export interface RouteProblem {
  code: RouteProblemCode;
  /** Field of the route body, e.g. `versions[1].version` or `shadow.version`. */
  path: string;
  model: string;
  version?: number;
  message: string;
}

/**
 * Checks a route against the model repository before it is written (admin API, coordinator):
 * the model has a readable config.pbtxt, each version (and the shadow) has a directory that
 * the version policy serves, and its preprocess.json parses and pins the tokenizer file's
 * actual sha256. Reads files only — no tokenizer or runtime is loaded.
 */
export class RouteEditValidator {
  private readonly reader: ModelRepositoryReader;

  constructor(repositoryRoot: string) {
    this.reader = new ModelRepositoryReader(repositoryRoot);
  }

  async check(route: Pick<Route, 'model' | 'versions' | 'shadow'>): Promise<RouteProblem[]> {
    const model = route.model;
    const entry = await this.reader.readModel(model);
    if (!entry) {
      return [
        {
          code: 'UNKNOWN_MODEL',
          path: 'model',
          model,
          message: `model '${model}' is not in the model repository`,
        },
      ];
    }
    if (entry.error) {
      return [
        {
          code: 'MODEL_CONFIG_INVALID',
          path: 'model',
          model,
          message: `model '${model}': ${entry.error}`,
        },
      ];
    }
    const wanted = route.versions.map((v, i) => ({
      version: v.version,
      path: `versions[${i}].version`,
    }));
    if (route.shadow) wanted.push({ version: route.shadow.version, path: 'shadow.version' });
    const problems: RouteProblem[] = [];
    for (const { version, path } of wanted) {
      const problem = await this.checkVersion(
        entry.dir,
        model,
        version,
        entry.versionsOnDisk,
        entry.versionsSelected,
      );
      if (problem) problems.push({ ...problem, path, model, version });
    }
    return problems;
  }

  private async checkVersion(
    dir: string,
    model: string,
    version: number,
    onDisk: readonly number[],
    selected: readonly number[],
  ): Promise<Pick<RouteProblem, 'code' | 'message'> | undefined> {
    if (!onDisk.includes(version)) {
      return {
        code: 'UNKNOWN_VERSION',
        message: `model '${model}' has no version ${version} in the model repository`,
      };
    }
    if (!selected.includes(version)) {
      return {
        code: 'VERSION_NOT_SELECTED',
        message: `model '${model}' version ${version} is not selected by its version_policy`,
      };
    }
    const versionDir = join(dir, String(version));
    try {
      const manifest = await readPreprocessManifest(versionDir);
      const actual = await sha256File(join(versionDir, manifest.tokenizer.file));
      if (actual.toLowerCase() !== manifest.tokenizer.sha256.toLowerCase()) {
        return {
          code: 'MANIFEST_INVALID',
          message: `model '${model}' version ${version}: tokenizer sha256 mismatch: ${manifest.tokenizer.file} is ${actual}, preprocess.json pins ${manifest.tokenizer.sha256}`,
        };
      }
      return undefined;
    } catch (err: unknown) {
      const reason = err instanceof Error ? err.message : String(err);
      return {
        code: 'MANIFEST_INVALID',
        message: `model '${model}' version ${version}: ${reason}`,
      };
    }
  }
}
