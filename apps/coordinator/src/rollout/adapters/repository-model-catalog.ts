import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  declaredMemoryMb,
  estimateMemoryMb,
  ModelRepositoryReader,
  modelConfigToProtoJson,
  readPreprocessManifest,
  type ModelEntry,
} from '@mesh/model-repository';
import { PreprocessingService, type ModelVersionPreprocessor } from '@mesh/preprocessing';
import type { ModelCatalog } from '../rollout-ports';

/**
 * The model repository as the coordinator sees it: which versions exist, whether their
 * manifests pass the same checks the routers apply, and the config a backend loads them with.
 * Read fresh on every call, since versions are added at run time.
 */
export class RepositoryModelCatalog implements ModelCatalog {
  private readonly reader: ModelRepositoryReader;

  constructor(
    root: string,
    private readonly preprocessing = new PreprocessingService(),
  ) {
    this.reader = new ModelRepositoryReader(root);
  }

  async problems(model: string, version: number): Promise<string[]> {
    const entry = await this.reader.readModel(model);
    if (!entry) return [`model '${model}' is not in the model repository`];
    if (entry.error || !entry.config) return [`model '${model}': ${entry.error ?? 'no config'}`];
    if (!entry.versionsOnDisk.includes(version)) {
      const known = entry.versionsOnDisk.join(', ') || 'none';
      return [
        `version ${version} of '${model}' is not in the model repository (versions: ${known})`,
      ];
    }
    try {
      await this.preprocessor(entry, version);
      return [];
    } catch (err: unknown) {
      const message = err instanceof Error ? err.message : String(err);
      return [`version ${version} of '${model}' fails its manifest check: ${message}`];
    }
  }

  async expectedSha(model: string, version: number): Promise<string | undefined> {
    const entry = await this.reader.readModel(model);
    if (!entry) return undefined;
    const manifest = await readPreprocessManifest(join(entry.dir, String(version)));
    return manifest.model.sha256.toLowerCase();
  }

  /** The model's config.pbtxt as JSON with a version policy naming exactly `versions`. */
  async servingConfig(model: string, versions: number[]): Promise<string> {
    const entry = await this.reader.readModel(model);
    if (!entry?.config) throw new Error(`model '${model}' is not in the model repository`);
    const json = modelConfigToProtoJson(entry.config);
    json.version_policy = { specific: { versions: [...versions].sort((a, b) => a - b) } };
    return JSON.stringify(json);
  }

  /**
   * The footprint the repository gives a version: `memory_mb_v<N>` from config.pbtxt, or else
   * the estimate the embedded host also admits loads with (the model file once per instance
   * plus one), used until a backend reports the measured size. Undefined when the version has
   * neither.
   */
  async footprintMb(
    model: string,
    version: number,
  ): Promise<{ mb: number; source: 'declared' | 'estimated' } | undefined> {
    const entry = await this.reader.readModel(model);
    if (!entry?.config) return undefined;
    const declared = declaredMemoryMb(entry.config, version);
    if (declared !== undefined) return { mb: declared, source: 'declared' };
    const file = entry.config.defaultModelFilename ?? 'model.onnx';
    try {
      const { size } = await stat(join(entry.dir, String(version), file));
      const instances = entry.config.instanceGroup.reduce((n, g) => n + Math.max(1, g.count), 0);
      return { mb: estimateMemoryMb(size, instances), source: 'estimated' };
    } catch {
      return undefined;
    }
  }

  /** The checked preprocessing of one version (warm-up requests are encoded with it). */
  async load(model: string, version: number): Promise<ModelVersionPreprocessor> {
    const entry = await this.reader.readModel(model);
    if (!entry) throw new Error(`model '${model}' is not in the model repository`);
    return this.preprocessor(entry, version);
  }

  private async preprocessor(entry: ModelEntry, version: number) {
    if (!entry.config) throw new Error(entry.error ?? 'no config');
    const versionDir = join(entry.dir, String(version));
    const manifest = await readPreprocessManifest(versionDir);
    const labels = entry.labels?.[manifest.postprocess.output];
    return this.preprocessing.load({
      model: entry.name,
      version,
      versionDir,
      manifest,
      config: entry.config,
      ...(labels ? { labels } : {}),
    });
  }
}
