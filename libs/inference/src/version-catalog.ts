import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CONFIG_FILE,
  MANIFEST_FILE,
  ModelRepositoryReader,
  ModelRepositoryRescanner,
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

interface CatalogSource {
  /** Reads again only the models whose files changed since the last refresh. */
  repository: ModelRepositoryRescanner;
  preprocessing: PreprocessingService;
  logger: Logger;
}

/**
 * Every model version in MODEL_REPOSITORY: the ones whose manifest, tokenizer (sha256) and
 * config agree become ServableVersions; the others keep the one-line reason they are
 * unroutable, which the 503 answer quotes. `refresh()` reads again only the models whose files
 * changed (ModelRepositoryRescanner) and loads only versions that are new or whose
 * config/manifest changed, so a version directory added at run time becomes servable without a
 * restart and a removed one disappears.
 */
export class VersionCatalog {
  private kinds = new Map<string, ServableVersion['kind']>();
  private fingerprints = new Map<string, string>();
  private source?: CatalogSource;
  private refreshing?: Promise<boolean>;
  /** Bumped whenever the set of versions (or one of them) changed. */
  private gen = 0;

  constructor(
    private servables: ReadonlyMap<string, ServableVersion>,
    private problems: ReadonlyMap<string, string>,
    private models: ReadonlySet<string>,
  ) {
    this.indexKinds();
  }

  static async load(
    root: string,
    preprocessing: PreprocessingService,
    logger: Logger,
  ): Promise<VersionCatalog> {
    const catalog = new VersionCatalog(new Map(), new Map(), new Set());
    const repository = new ModelRepositoryRescanner(new ModelRepositoryReader(root));
    catalog.source = { repository, preprocessing, logger };
    await catalog.refresh();
    return catalog;
  }

  /** Changes since load, for caches keyed on the catalog's content. */
  get generation(): number {
    return this.gen;
  }

  /**
   * Re-reads the repository; resolves true when a version was added, removed or reloaded.
   * Calls made while a refresh runs share it.
   */
  refresh(): Promise<boolean> {
    if (!this.source) return Promise.resolve(false);
    const source = this.source;
    this.refreshing ??= this.refreshFrom(source).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
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

  hasModel(model: string): boolean {
    return this.models.has(model);
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

  private async refreshFrom({
    repository,
    preprocessing,
    logger,
  }: CatalogSource): Promise<boolean> {
    const entries = await repository.readAll();
    const servables = new Map<string, ServableVersion>();
    const problems = new Map<string, string>();
    const fingerprints = new Map<string, string>();
    let changed = false;
    for (const entry of entries) {
      for (const version of entry.versionsOnDisk) {
        const id = key(entry.name, version);
        const fp = await fingerprint(entry, version);
        fingerprints.set(id, fp);
        const before = this.servables.get(id);
        const problem = this.problems.get(id);
        if (this.fingerprints.get(id) === fp && (before || problem)) {
          if (before) servables.set(id, before);
          else problems.set(id, problem!);
          continue;
        }
        changed = true;
        try {
          servables.set(id, await loadVersion(entry, version, preprocessing));
          if (this.source && this.fingerprints.size > 0)
            logger.info(
              { event: 'version-loaded', model: entry.name, version },
              'model version loaded',
            );
        } catch (err: unknown) {
          const reason = err instanceof Error ? err.message : String(err);
          problems.set(id, reason);
          logger.warn({ model: entry.name, version, reason }, 'model version is unroutable');
        }
      }
    }
    for (const id of this.fingerprints.keys()) {
      if (fingerprints.has(id)) continue;
      changed = true;
      const [model, version] = id.split('\u0000');
      logger.info(
        { event: 'version-removed', model, version },
        'model version left the repository',
      );
    }
    this.servables = servables;
    this.problems = problems;
    this.fingerprints = fingerprints;
    this.models = new Set(entries.map((e) => e.name));
    this.indexKinds();
    if (changed) this.gen += 1;
    return changed;
  }

  private indexKinds(): void {
    const kinds = new Map<string, ServableVersion['kind']>();
    for (const v of this.servables.values()) kinds.set(v.model, v.kind);
    this.kinds = kinds;
  }
}

/** What decides a version's load: its config, manifest and policy selection, by stat + state. */
async function fingerprint(entry: ModelEntry, version: number): Promise<string> {
  const versionDir = join(entry.dir, String(version));
  const parts = await Promise.all(
    [join(entry.dir, CONFIG_FILE), join(versionDir, MANIFEST_FILE)].map((file) =>
      stat(file).then(
        (s) => `${s.mtimeMs}:${s.size}`,
        () => 'missing',
      ),
    ),
  );
  return [...parts, entry.error ?? '', entry.versionsSelected.includes(version)].join('|');
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
