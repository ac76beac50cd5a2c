import { join } from 'node:path';
import {
  checkModelSignature,
  ManifestError,
  readPreprocessManifest,
  sha256File,
  type ModelConfig,
  type OnnxSignature,
  type PreprocessManifest,
} from '@mesh/model-repository';
import { PreprocessingService, type ModelVersionPreprocessor } from '@mesh/preprocessing';
import { OrtModelClient } from './ort-model.client';
import { runProbes, type ProbeResult } from './probe.runner';

export const MODEL_FILE = 'model.onnx';

export interface VersionTarget {
  model: string;
  version: number;
  /** `<repository>/<model>/<version>` (or a staging directory holding the same files). */
  dir: string;
  config: ModelConfig;
  /** labels.txt lines per output name. */
  labels?: Record<string, string[]>;
}

export interface VersionReport {
  model: string;
  version: number;
  manifest?: PreprocessManifest;
  modelSha256?: string;
  signature?: OnnxSignature;
  probes?: ProbeResult;
  problems: string[];
  notes: string[];
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The onnxruntime shape as the host compares it: symbolic dims are -1. */
const hostShape = (shape: ReadonlyArray<number | string>): number[] =>
  shape.map((d) => (typeof d === 'number' ? d : -1));

function checkHashes(
  t: VersionTarget,
  manifest: PreprocessManifest,
  sha: string,
  r: VersionReport,
) {
  if (sha !== manifest.model.sha256) {
    r.problems.push(
      `${MODEL_FILE} has sha256 ${sha} but preprocess.json pins model.sha256 ${manifest.model.sha256}`,
    );
  }
  const key = `model_sha256_v${t.version}`;
  const pinned =
    t.config.parameters[key]?.stringValue ?? t.config.parameters.model_sha256?.stringValue;
  if (pinned === undefined) {
    r.notes.push(
      `config.pbtxt has no ${key} parameter: backends cannot prove they serve these bytes`,
    );
  } else if (pinned.toLowerCase() !== sha) {
    r.problems.push(`${MODEL_FILE} has sha256 ${sha} but config.pbtxt pins ${pinned}`);
  }
}

function checkLabelCount(t: VersionTarget, manifest: PreprocessManifest, r: VersionReport): void {
  if (manifest.postprocess.kind !== 'classification') return;
  const output = t.config.output.find((o) => o.name === manifest.postprocess.output);
  const labels = t.labels?.[manifest.postprocess.output];
  const width = output?.dims[output.dims.length - 1];
  if (!output?.labelFilename || labels === undefined) {
    r.problems.push(
      `output '${manifest.postprocess.output}' has no label_filename in config.pbtxt, so predictions would have no label names`,
    );
  } else if (width !== undefined && width > 0 && width !== labels.length) {
    r.problems.push(
      `output '${output.name}' has ${width} classes in config.pbtxt but ${output.labelFilename} has ${labels.length} labels`,
    );
  }
}

async function loadPreprocessing(
  t: VersionTarget,
  manifest: PreprocessManifest,
  r: VersionReport,
): Promise<ModelVersionPreprocessor | undefined> {
  try {
    return await new PreprocessingService().load({
      model: t.model,
      version: t.version,
      versionDir: t.dir,
      manifest,
      config: t.config,
      labels: t.labels?.[manifest.postprocess.output] ?? [],
    });
  } catch (err: unknown) {
    r.problems.push(message(err));
    return undefined;
  }
}

async function checkWithOrt(
  t: VersionTarget,
  preprocessor: ModelVersionPreprocessor | undefined,
  r: VersionReport,
): Promise<void> {
  let client: OrtModelClient;
  try {
    client = await OrtModelClient.open(join(t.dir, MODEL_FILE));
  } catch (err: unknown) {
    r.problems.push(message(err));
    return;
  }
  try {
    const sig = client.signature();
    r.signature = sig;
    const problems = checkModelSignature(
      t.config,
      sig.inputs.map((i) => ({ ...i, shape: hostShape(i.shape) })),
      sig.outputs.map((o) => ({ ...o, shape: hostShape(o.shape) })),
    );
    r.problems.push(...problems);
    if (problems.length > 0 || !preprocessor) return;
    r.probes = await runProbes(
      client,
      preprocessor,
      t.labels?.[preprocessor.manifest.postprocess.output] ?? [],
    );
    r.problems.push(...r.probes.problems);
  } catch (err: unknown) {
    r.problems.push(`probe run failed: ${message(err)}`);
  } finally {
    await client.close();
  }
}

/**
 * Everything the mesh checks before a version serves, in one pass: the manifest's schema, the
 * model bytes against preprocess.json and config.pbtxt, labels against the output, the
 * pipeline and tokenizer as the router loads them, the config against the ONNX graph as the
 * model host loads it, and the probe runs (batch 1 vs a padded batch 4).
 */
export async function validateVersion(t: VersionTarget): Promise<VersionReport> {
  const r: VersionReport = { model: t.model, version: t.version, problems: [], notes: [] };
  let manifest: PreprocessManifest;
  try {
    manifest = await readPreprocessManifest(t.dir);
  } catch (err: unknown) {
    r.problems.push(err instanceof ManifestError ? err.message : message(err));
    return r;
  }
  r.manifest = manifest;
  try {
    r.modelSha256 = await sha256File(join(t.dir, MODEL_FILE));
  } catch (err: unknown) {
    r.problems.push(`cannot read ${MODEL_FILE}: ${message(err)}`);
    return r;
  }
  checkHashes(t, manifest, r.modelSha256, r);
  checkLabelCount(t, manifest, r);
  const preprocessor = await loadPreprocessing(t, manifest, r);
  await checkWithOrt(t, preprocessor, r);
  return r;
}
