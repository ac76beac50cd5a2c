import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ModelRepositoryReader,
  missingVersions,
  selectVersions,
  sha256File,
  type ModelConfig,
} from '@mesh/model-repository';
import { InvalidInferenceError } from '../core/model-host.errors';
import { applyConfigOverride } from './config-override';
import { readOnnxGraphWiringFile, type OnnxGraphWiring } from './onnx-graph-reader';

/** The files of one model in the repository, as read at load time. */
export interface ModelFiles {
  name: string;
  dir: string;
  config: ModelConfig;
  /** Versions selected by version_policy, ascending. */
  versions: number[];
  /** Class labels per output name (from each output's label_filename). */
  labels: Record<string, string[]>;
}

/** Filesystem adapter over a Triton model repository (`<root>/<model>/config.pbtxt`, `<v>/`). */
export class ModelFilesRepository {
  private readonly reader: ModelRepositoryReader;

  constructor(readonly root: string) {
    this.reader = new ModelRepositoryReader(root);
  }

  listModels(): Promise<string[]> {
    return this.reader.listModels();
  }

  async exists(name: string): Promise<boolean> {
    return (await this.reader.readModel(name)) !== undefined;
  }

  /**
   * Reads config.pbtxt and the selected versions; throws with the reader's reason. `override`
   * is a load's `config` parameter (JSON ModelConfig) applied over config.pbtxt.
   */
  async read(name: string, override?: string): Promise<ModelFiles> {
    const entry = await this.reader.readModel(name);
    if (!entry) throw new Error(`no model '${name}' in the model repository`);
    if (entry.error !== undefined || !entry.config)
      throw new Error(entry.error ?? 'config.pbtxt is unreadable');
    const labels = entry.labels ?? {};
    if (override === undefined) {
      return {
        name,
        dir: entry.dir,
        config: entry.config,
        versions: entry.versionsSelected,
        labels,
      };
    }
    const config = applyConfigOverride(name, entry.config, override);
    const missing = missingVersions(config.versionPolicy, entry.versionsOnDisk);
    if (missing.length > 0) {
      throw new InvalidInferenceError(
        `load parameter 'config': version_policy names version ${missing.join(', ')} of '${name}', which has no directory`,
      );
    }
    const versions = selectVersions(config.versionPolicy, entry.versionsOnDisk);
    return { name, dir: entry.dir, config, versions, labels };
  }

  /** Identifies the bytes of a model file cheaply (size and modification time), for reloads. */
  async fileStamp(path: string): Promise<string> {
    const s = await stat(path);
    return `${s.size}:${s.mtimeMs}`;
  }

  /** Bytes of a model file, for the memory estimate of a version nobody measured. */
  async fileSize(path: string): Promise<number> {
    return (await stat(path)).size;
  }

  modelFile(files: ModelFiles, version: number): string {
    return join(files.dir, String(version), files.config.defaultModelFilename || 'model.onnx');
  }

  async isFile(path: string): Promise<boolean> {
    try {
      return (await stat(path)).isFile();
    } catch {
      return false;
    }
  }

  sha256(path: string): Promise<string> {
    return sha256File(path);
  }

  /**
   * The graph's wiring and initializer dims, or undefined when the file is not a ModelProto this
   * reader understands (ORT reports the real problem when it opens the file).
   */
  graphWiring(path: string): Promise<OnnxGraphWiring | undefined> {
    return readOnnxGraphWiringFile(path);
  }
}
