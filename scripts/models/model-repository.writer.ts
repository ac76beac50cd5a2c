import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MODEL_SIZES, type ModelSize } from './bert-dimensions';
import { buildBertOnnx } from './bert-onnx';
import { DEMO_MODELS, type DemoModel, type DemoVersion } from './demo-catalog';
import { bertSpecFor, renderRepositoryText, sha256Hex, versionFile } from './repository-files';
import { buildTokenizerJson } from './tokenizer-json';

export const MODEL_FILE = 'model.onnx';

export interface RepositoryOptions {
  /** Repository root, e.g. ./model_repository. */
  outDir: string;
  size: ModelSize;
  /** The committed word list (index = token id). */
  vocab: readonly string[];
  models?: readonly DemoModel[];
}

export interface GenerateReport {
  /** model.onnx files (relative paths) generated in this run, with build time. */
  modelsGenerated: Array<{ path: string; bytes: number; ms: number }>;
  /** model.onnx files kept because they match their manifest's sha256. */
  modelsKept: string[];
  /** Text files whose content changed (or were created). */
  filesWritten: string[];
  filesUnchanged: string[];
}

async function readIfExists(path: string): Promise<Buffer | undefined> {
  return existsSync(path) ? readFile(path) : undefined;
}

/** Writes through a temporary file so an interrupted run leaves no half-written model. */
async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/**
 * Generates (or checks) a demo model repository. Every byte is a function of
 * the word list, the catalogue and the size: running it twice gives the same
 * files, and `check` proves the committed ones are what it would write.
 */
export class ModelRepositoryWriter {
  private readonly models: readonly DemoModel[];
  private readonly tokenizerJson: string;

  constructor(private readonly options: RepositoryOptions) {
    this.models = options.models ?? DEMO_MODELS;
    this.tokenizerJson = buildTokenizerJson(options.vocab);
  }

  /** The model.onnx bytes of one version. */
  buildModel(model: DemoModel, version: DemoVersion): Uint8Array {
    return buildBertOnnx(
      bertSpecFor(model, version, MODEL_SIZES[this.options.size], this.options.vocab.length),
    );
  }

  /** All text files with hashes of freshly built models (nothing read or written). */
  renderInMemory(): Map<string, string> {
    return this.render((model, version) => sha256Hex(this.buildModel(model, version)));
  }

  /**
   * Writes missing (or, with `force`, all) model.onnx files, then every text
   * file whose content differs. An existing model.onnx is kept only when its
   * sha256 matches the one its preprocess.json pins.
   */
  async generate(force: boolean, log: (line: string) => void = () => {}): Promise<GenerateReport> {
    const report: GenerateReport = {
      modelsGenerated: [],
      modelsKept: [],
      filesWritten: [],
      filesUnchanged: [],
    };
    const hashes = new Map<string, string>();
    for (const model of this.models) {
      for (const version of model.versions) {
        const path = versionFile(model, version, MODEL_FILE);
        hashes.set(path, await this.ensureModel(model, version, force, report, log));
      }
    }
    const files = this.render((m, v) => hashes.get(versionFile(m, v, MODEL_FILE)) ?? '');
    for (const [path, text] of files) {
      const current = await readIfExists(join(this.options.outDir, path));
      if (current !== undefined && current.equals(Buffer.from(text))) {
        report.filesUnchanged.push(path);
        continue;
      }
      await writeAtomically(join(this.options.outDir, path), text);
      report.filesWritten.push(path);
    }
    return report;
  }

  /**
   * Relative paths of files that regenerating would change: text files that
   * differ or are missing, and model.onnx files present with other bytes.
   */
  async check(): Promise<string[]> {
    const stale: string[] = [];
    const hashes = new Map<string, string>();
    for (const model of this.models) {
      for (const version of model.versions) {
        const path = versionFile(model, version, MODEL_FILE);
        const sha = sha256Hex(this.buildModel(model, version));
        hashes.set(path, sha);
        const onDisk = await readIfExists(join(this.options.outDir, path));
        if (onDisk !== undefined && sha256Hex(onDisk) !== sha) stale.push(path);
      }
    }
    for (const [path, text] of this.render(
      (m, v) => hashes.get(versionFile(m, v, MODEL_FILE)) ?? '',
    )) {
      const onDisk = await readIfExists(join(this.options.outDir, path));
      if (onDisk === undefined || !onDisk.equals(Buffer.from(text))) stale.push(path);
    }
    return stale;
  }

  private render(
    modelSha256Of: (model: DemoModel, version: DemoVersion) => string,
  ): Map<string, string> {
    return renderRepositoryText(
      this.models,
      MODEL_SIZES[this.options.size],
      this.tokenizerJson,
      modelSha256Of,
    );
  }

  private async ensureModel(
    model: DemoModel,
    version: DemoVersion,
    force: boolean,
    report: GenerateReport,
    log: (line: string) => void,
  ): Promise<string> {
    const path = versionFile(model, version, MODEL_FILE);
    const absolute = join(this.options.outDir, path);
    if (!force) {
      const kept = await this.verifiedExisting(model, version, absolute);
      if (kept !== undefined) {
        report.modelsKept.push(path);
        return kept;
      }
    }
    const started = performance.now();
    const bytes = this.buildModel(model, version);
    await writeAtomically(absolute, bytes);
    const ms = Math.round(performance.now() - started);
    report.modelsGenerated.push({ path, bytes: bytes.length, ms });
    log(`generated ${path} (${(bytes.length / 1048576).toFixed(1)} MiB, ${ms} ms)`);
    return sha256Hex(bytes);
  }

  /** sha256 of an existing model.onnx if its preprocess.json pins exactly that hash. */
  private async verifiedExisting(
    model: DemoModel,
    version: DemoVersion,
    modelPath: string,
  ): Promise<string | undefined> {
    const [onnx, manifest] = await Promise.all([
      readIfExists(modelPath),
      readIfExists(join(this.options.outDir, versionFile(model, version, 'preprocess.json'))),
    ]);
    if (onnx === undefined || manifest === undefined) return undefined;
    let pinned: unknown;
    try {
      pinned = (JSON.parse(manifest.toString('utf8')) as { model?: { sha256?: unknown } }).model
        ?.sha256;
    } catch {
      return undefined; // an unreadable manifest is rewritten below, with a fresh model
    }
    const actual = sha256Hex(onnx);
    return pinned === actual ? actual : undefined;
  }
}
