import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelRepositoryReader, sha256File, type ModelConfig } from '@mesh/model-repository';

/** The files of one model in the repository, as read at load time. */
export interface ModelFiles {
  name: string;
  dir: string;
  config: ModelConfig;
  /** Versions selected by version_policy, ascending. */
  versions: number[];
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

  /** Reads config.pbtxt and the selected versions; throws with the reader's reason. */
  async read(name: string): Promise<ModelFiles> {
    const entry = await this.reader.readModel(name);
    if (!entry) throw new Error(`no model '${name}' in the model repository`);
    if (entry.error !== undefined || !entry.config)
      throw new Error(entry.error ?? 'config.pbtxt is unreadable');
    return { name, dir: entry.dir, config: entry.config, versions: entry.versionsSelected };
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
}
