import { join } from 'node:path';
import {
  ModelRepositoryReader,
  readPreprocessManifest,
  type ModelEntry,
} from '@mesh/model-repository';
import type { PreprocessingService } from '@mesh/preprocessing';
import type { Logger } from 'pino';
import { ServableVersion } from './servable-version';

/** Why a model version cannot be served, as loaded from the repository. */
export interface VersionProblem {
  model: string;
  version: number;
  reason: string;
}

/**
 * Every model version in MODEL_REPOSITORY, loaded once at boot: the ones whose manifest,
 * tokenizer (sha256) and config agree become ServableVersions; the others keep the one-line
 * reason they are unroutable, which the 503 answer quotes.
 */
export class VersionCatalog {
  private readonly kinds = new Map<string, ServableVersion['kind']>();

  constructor(
    private readonly servables: ReadonlyMap<string, ServableVersion>,
    private readonly problems: ReadonlyMap<string, string>,
    private readonly models: ReadonlySet<string>,
  ) {
    for (const v of servables.values()) this.kinds.set(v.model, v.kind);
  }

  static async load(
    root: string,
    preprocessing: PreprocessingService,
    logger: Logger,
  ): Promise<VersionCatalog> {
    const entries = await new ModelRepositoryReader(root).readAll();
    const servables = new Map<string, ServableVersion>();
    const problems = new Map<string, string>();
    for (const entry of entries) {
      for (const version of entry.versionsOnDisk) {
        const id = key(entry.name, version);
        try {
          servables.set(id, await loadVersion(entry, version, preprocessing));
        } catch (err: unknown) {
          const reason = err instanceof Error ? err.message : String(err);
          problems.set(id, reason);
          logger.warn({ model: entry.name, version, reason }, 'model version is unroutable');
        }
      }
    }
    return new VersionCatalog(servables, problems, new Set(entries.map((e) => e.name)));
  }

  servable(model: string, version: number): ServableVersion | undefined {
    return this.servables.get(key(model, version));
  }

  /** Why (model, version) has no ServableVersion. */
  problem(model: string, version: number): string {
    const known = this.problems.get(key(model, version));
    if (known) return known;
    return this.models.has(model)
      ? `model ${model} has no version ${version} in the model repository`
      : `model ${model} is not in the model repository`;
  }

  kindOf(model: string): ServableVersion['kind'] | undefined {
    return this.kinds.get(model);
  }

  all(): ServableVersion[] {
    return [...this.servables.values()];
  }

  allProblems(): VersionProblem[] {
    return [...this.problems.entries()].map(([id, reason]) => {
      const [model = '', version = '0'] = id.split('\u0000');
      return { model, version: Number(version), reason };
    });
  }
}

async function loadVersion(
  entry: ModelEntry,
  version: number,
  preprocessing: PreprocessingService,
): Promise<ServableVersion> {
  if (entry.error || !entry.config) throw new Error(entry.error ?? `${entry.name}: no config`);
  if (!entry.versionsSelected.includes(version)) {
    throw new Error(`model ${entry.name} version ${version} is not selected by its version_policy`);
  }
  const versionDir = join(entry.dir, String(version));
  const manifest = await readPreprocessManifest(versionDir);
  const typeIds = manifest.inputs.typeIds;
  if (typeIds === undefined) {
    throw new Error(
      `model ${entry.name} version ${version}: preprocess.json declares no typeIds input, which every bert-wordpiece pipeline feeds`,
    );
  }
  const labels = entry.labels?.[manifest.postprocess.output];
  const pre = await preprocessing.load({
    model: entry.name,
    version,
    versionDir,
    manifest: { ...manifest, inputs: { ...manifest.inputs, typeIds } },
    config: entry.config,
    ...(labels ? { labels } : {}),
  });
  return new ServableVersion(pre, manifest.model.sha256.toLowerCase(), entry.config.maxBatchSize);
}

function key(model: string, version: number): string {
  return `${model}\u0000${version}`;
}
