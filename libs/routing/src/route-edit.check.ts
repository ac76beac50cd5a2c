import { join } from 'node:path';
import {
  declaredMemoryMb,
  ModelRepositoryReader,
  readPreprocessManifest,
  sha256File,
  type ModelConfig,
} from '@mesh/model-repository';
import { tooLargeReason } from '@mesh/placement';
import type { Route } from './routing.types';

/** Why a route edit names something the repository cannot serve. */
export type RouteProblemCode =
  | 'UNKNOWN_MODEL'
  | 'MODEL_CONFIG_INVALID'
  | 'UNKNOWN_VERSION'
  | 'VERSION_NOT_SELECTED'
  | 'MANIFEST_INVALID'
  /** A weighted version's footprint exceeds every backend's memory budget: never placeable. */
  | 'MODEL_TOO_LARGE';

export interface RouteProblem {
  code: RouteProblemCode;
  /** Field of the route body, e.g. `versions[1].version` or `shadow.version`. */
  path: string;
  model: string;
  version?: number;
  message: string;
}

export interface RouteEditValidatorOptions {
  /**
   * The largest backend memory budget (PlacementLedgerReader.largestBudgetMb): null while
   * unknown or unlimited. Absent: footprints are not checked.
   */
  largestBudgetMb?: () => Promise<number | null>;
}

/**
 * Checks a route against the model repository before it is written (admin API, coordinator):
 * the model has a readable config.pbtxt, each version (and the shadow) has a directory that
 * the version policy serves, and its preprocess.json parses and pins the tokenizer file's
 * actual sha256. Reads files only — no tokenizer or runtime is loaded. With a budget source,
 * a version given weight whose `memory_mb_v<N>` exceeds every backend's budget is refused too
 * (MODEL_TOO_LARGE): no placer could ever load it, so its traffic would only wait and fail.
 */
export class RouteEditValidator {
  private readonly reader: ModelRepositoryReader;

  constructor(
    repositoryRoot: string,
    private readonly options: RouteEditValidatorOptions = {},
  ) {
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
    if (entry.config) problems.push(...(await this.tooLarge(route, entry.config, problems)));
    return problems;
  }

  /** Weighted versions (without another problem) whose declared footprint fits no backend. */
  private async tooLarge(
    route: Pick<Route, 'model' | 'versions'>,
    config: ModelConfig,
    known: readonly RouteProblem[],
  ): Promise<RouteProblem[]> {
    const source = this.options.largestBudgetMb;
    if (!source) return [];
    const flagged = new Set(known.map((p) => p.version));
    const sized = route.versions.flatMap((v, i) => {
      if (!(v.weight > 0) || flagged.has(v.version)) return [];
      const mb = declaredMemoryMb(config, v.version);
      return mb === undefined ? [] : [{ version: v.version, mb, path: `versions[${i}].weight` }];
    });
    if (sized.length === 0) return [];
    const largest = await source();
    return sized.flatMap(({ version, mb, path }) => {
      const message = tooLargeReason(route.model, version, mb, largest);
      return message === undefined
        ? []
        : [{ code: 'MODEL_TOO_LARGE' as const, path, model: route.model, version, message }];
    });
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
