import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkAgainstExisting,
  CONFIG_FILE,
  MANIFEST_FILE,
  ModelImportError,
  memoryParameterKey,
  ModelRepositoryReader,
  parseLabels,
  parseModelConfig,
  planModelImport,
  selectVersions,
  setModelConfigParameter,
  sha256File,
  writeModelConfig,
  writePreprocessManifest,
  type ImportKind,
  type ImportPlan,
  type ModelConfig,
  type ModelEntry,
  type OnnxSignature,
  type PreprocessManifest,
} from '@mesh/model-repository';
import type { PipelineDefinition } from '@mesh/preprocessing';
import { ModelCliError } from './model-cli.errors';
import { OrtModelClient } from './ort-model.client';
import { measureFootprint } from './version-footprint.meter';
import { MODEL_FILE, validateVersion, type VersionReport } from './version.validator';

export const TOKENIZER_FILE = 'tokenizer.json';
export const LABELS_FILE = 'labels.txt';
export const HARD_MAX_CHARS = 20000;
export const TOP_K = 3;

export interface ModelAddOptions {
  repository: string;
  name: string;
  version?: number;
  onnx: string;
  tokenizer: string;
  labels?: string;
  pipeline: PipelineDefinition;
  maxLength: number;
  kind: ImportKind;
  maxBatchSize: number;
  output?: string;
  pooling: 'cls' | 'mean';
  force: boolean;
}

export interface ModelAddResult {
  model: string;
  version: number;
  /** Whether the model existed and only gained (or replaced) a version. */
  existingModel: boolean;
  replaced: boolean;
  labels: string[];
  tokenizerSha256: string;
  report: VersionReport;
  /** memory_mb_v<N> written: the measured load's resident MB, and its instances. */
  memory: { mb: number; instances: number };
  notes: string[];
}

interface Plan {
  configText: string;
  config: ModelConfig;
  labelsText?: string;
  labels: string[];
  notes: string[];
}

async function readInput(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err: unknown) {
    throw new ModelCliError(
      'INPUT_UNREADABLE',
      `cannot read the ${what} ${path}: ${(err as Error).message}`,
    );
  }
}

async function existingEntry(o: ModelAddOptions): Promise<ModelEntry | undefined> {
  if (!existsSync(join(o.repository, o.name, CONFIG_FILE))) return undefined;
  const entry = await new ModelRepositoryReader(o.repository).readModel(o.name);
  if (entry?.error || !entry?.config) {
    throw new ModelCliError(
      'MODEL_UNREADABLE',
      `the existing model ${o.name} cannot be read: ${entry?.error ?? 'no config'}; fix it before adding a version`,
    );
  }
  return entry;
}

async function inspect(path: string): Promise<OnnxSignature> {
  const client = await OrtModelClient.open(path).catch((err: unknown) => {
    throw new ModelCliError('MODEL_REFUSED', (err as Error).message);
  });
  try {
    return client.signature();
  } finally {
    await client.close();
  }
}

function refuseImport(err: unknown): never {
  if (err instanceof ModelImportError) {
    throw new ModelCliError(
      'MODEL_REFUSED',
      `refused (${err.code}):\n${err.problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
  throw err;
}

function planForExisting(
  o: ModelAddOptions,
  entry: ModelEntry,
  plan: ImportPlan,
  version: number,
  sha: string,
  labels: string[],
  configText: string,
): Plan {
  const config = entry.config!;
  try {
    checkAgainstExisting(config, plan);
  } catch (err: unknown) {
    refuseImport(err);
  }
  const current = entry.labels?.[plan.output] ?? [];
  if (o.kind === 'classification' && current.join('\n') !== labels.join('\n')) {
    throw new ModelCliError(
      'MODEL_REFUSED',
      `the labels differ from ${o.name}/${config.output.find((x) => x.name === plan.output)?.labelFilename ?? LABELS_FILE} (${current.length} labels: ${current.join(', ')}); all versions of a model share one label file, so publish different labels as a new model`,
    );
  }
  const file = `${o.name}/${CONFIG_FILE}`;
  const text = setModelConfigParameter(configText, file, `model_sha256_v${version}`, sha);
  const notes: string[] = [];
  const versions = [...new Set([...entry.versionsOnDisk, version])].sort((a, b) => a - b);
  if (!selectVersions(config.versionPolicy, versions).includes(version)) {
    notes.push(
      `config.pbtxt's version_policy does not select version ${version}; a rollout or a load with a config override must name it`,
    );
  }
  if (config.maxBatchSize !== o.maxBatchSize) {
    notes.push(
      `kept the model's max_batch_size ${config.maxBatchSize} (config.pbtxt is shared by its versions)`,
    );
  }
  return { configText: text, config: parseModelConfig(text, file), labels: current, notes };
}

function planForNew(plan: ImportPlan, version: number, sha: string, labels: string[]): Plan {
  const config: ModelConfig = {
    ...plan.config,
    parameters: { [`model_sha256_v${version}`]: { stringValue: sha } },
  };
  return {
    configText: writeModelConfig(config),
    config,
    labelsText: labels.length > 0 ? `${labels.join('\n')}\n` : undefined,
    labels,
    notes: [],
  };
}

function manifestFor(
  o: ModelAddOptions,
  plan: ImportPlan,
  tokenizerSha: string,
  modelSha: string,
): PreprocessManifest {
  return {
    pipeline: o.pipeline.name,
    pipelineVersion: o.pipeline.version,
    tokenizer: { file: TOKENIZER_FILE, sha256: tokenizerSha },
    model: { sha256: modelSha },
    maxLength: o.maxLength,
    hardMaxChars: HARD_MAX_CHARS,
    padding: o.pipeline.padding,
    truncation: o.pipeline.truncation[0] ?? 'longest_first',
    inputs: plan.inputs,
    postprocess:
      o.kind === 'classification'
        ? { kind: 'classification', output: plan.output, activation: 'softmax', topK: TOP_K }
        : { kind: 'embedding', output: plan.output, pooling: o.pooling, normalize: true },
  };
}

/** Writes via a temporary name and a rename, so a reader never sees half a file. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

interface PreparedVersion {
  entry?: ModelEntry;
  version: number;
  versionDir: string;
  replaced: boolean;
  plan: ImportPlan;
  files: Plan;
  manifestText: string;
  tokenizerSha256: string;
}

async function readLabels(o: ModelAddOptions): Promise<string[]> {
  // An encoder has no classes: its labels would mean nothing.
  const labels =
    o.labels && o.kind === 'classification'
      ? parseLabels((await readInput(o.labels, 'labels file')).toString('utf8'))
      : [];
  if (o.kind === 'classification' && labels.length === 0) {
    throw new ModelCliError(
      'USAGE',
      'a classification model needs --labels <labels.txt> with one label per line',
    );
  }
  return labels;
}

/** Everything decided before a byte is written: version, refusals, the text of every file. */
async function prepare(o: ModelAddOptions): Promise<PreparedVersion> {
  const entry = await existingEntry(o);
  const version = o.version ?? Math.max(0, ...(entry?.versionsOnDisk ?? [])) + 1;
  const versionDir = join(o.repository, o.name, String(version));
  const replaced = existsSync(versionDir);
  if (replaced && !o.force) {
    throw new ModelCliError(
      'VERSION_EXISTS',
      `${o.name}/${version} already exists in ${o.repository}; pass --force to replace it, or choose another --version`,
    );
  }
  await readInput(o.tokenizer, 'tokenizer');
  await readInput(o.onnx, 'ONNX model');
  const labels = await readLabels(o);
  let plan: ImportPlan;
  try {
    plan = planModelImport(await inspect(o.onnx), {
      name: o.name,
      kind: o.kind,
      labelCount: labels.length,
      maxBatchSize: o.maxBatchSize,
      output: o.output,
      labelsFile: LABELS_FILE,
    });
  } catch (err: unknown) {
    refuseImport(err);
  }
  const modelSha = await sha256File(o.onnx);
  const tokenizerSha256 = await sha256File(o.tokenizer);
  const configPath = join(o.repository, o.name, CONFIG_FILE);
  const files = entry
    ? planForExisting(o, entry, plan, version, modelSha, labels, await readFile(configPath, 'utf8'))
    : planForNew(plan, version, modelSha, labels);
  const manifestText = writePreprocessManifest(
    manifestFor(o, plan, tokenizerSha256, modelSha),
    `${o.name}/${version}/${MANIFEST_FILE}`,
  );
  return { entry, version, versionDir, replaced, plan, files, manifestText, tokenizerSha256 };
}

/** Writes the version into `staging` and validates it there; throws VALIDATION_FAILED. */
async function stageAndValidate(
  o: ModelAddOptions,
  p: PreparedVersion,
  staging: string,
): Promise<VersionReport> {
  await copyFile(o.onnx, join(staging, MODEL_FILE));
  await copyFile(o.tokenizer, join(staging, TOKENIZER_FILE));
  await writeFile(join(staging, MANIFEST_FILE), p.manifestText);
  const report = await validateVersion({
    model: o.name,
    version: p.version,
    dir: staging,
    config: p.files.config,
    labels: p.files.labels.length > 0 ? { [p.plan.output]: p.files.labels } : undefined,
  });
  if (report.problems.length > 0) {
    throw new ModelCliError(
      'VALIDATION_FAILED',
      `${o.name}/${p.version} failed validation; nothing was written:\n${report.problems.map((x) => `  - ${x}`).join('\n')}`,
    );
  }
  return report;
}

/** Moves the validated version into place, then the model's labels and config. */
async function commit(o: ModelAddOptions, p: PreparedVersion, staging: string): Promise<void> {
  const modelDir = join(o.repository, o.name);
  await mkdir(modelDir, { recursive: true });
  if (p.replaced) await rm(p.versionDir, { recursive: true, force: true });
  await rename(staging, p.versionDir);
  if (p.files.labelsText !== undefined) {
    await writeAtomically(join(modelDir, LABELS_FILE), p.files.labelsText);
  }
  await writeAtomically(join(modelDir, CONFIG_FILE), p.files.configText);
}

/**
 * `mesh model add`: inspects the exported model, plans its config, writes the version into a
 * hidden staging directory of the repository, validates it there exactly as `model check`
 * would, and only then moves it into place and writes config.pbtxt (and labels.txt for a new
 * model). A refusal leaves the repository untouched.
 */
export async function addModelVersion(o: ModelAddOptions): Promise<ModelAddResult> {
  const p = await prepare(o);
  const newRepository = !existsSync(o.repository);
  await mkdir(o.repository, { recursive: true });
  const staging = await mkdtemp(join(o.repository, `.model-add-${o.name}-${p.version}-`));
  try {
    const report = await stageAndValidate(o, p, staging);
    const memory = await measureFootprint(
      p.files.config,
      join(staging, MODEL_FILE),
      o.name,
      p.version,
    );
    p.files.configText = setModelConfigParameter(
      p.files.configText,
      `${o.name}/${CONFIG_FILE}`,
      memoryParameterKey(p.version),
      String(memory.mb),
    );
    await commit(o, p, staging);
    return {
      model: o.name,
      version: p.version,
      existingModel: p.entry !== undefined,
      replaced: p.replaced,
      labels: p.files.labels,
      tokenizerSha256: p.tokenizerSha256,
      report,
      memory,
      notes: [...p.files.notes, ...report.notes],
    };
  } catch (err: unknown) {
    await rm(staging, { recursive: true, force: true });
    // A refusal leaves no trace, not even the repository directory it had to create; rmdir
    // only removes it while empty, so a concurrent add into it is never harmed.
    if (newRepository) await rmdir(o.repository).catch(() => undefined);
    throw err;
  }
}
