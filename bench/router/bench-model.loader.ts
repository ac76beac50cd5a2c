import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseModelConfig, parseLabels, readPreprocessManifest } from '@mesh/model-repository';
import { PreprocessingService, type ModelVersionPreprocessor } from '@mesh/preprocessing';

export interface BenchModel {
  dir: string;
  modelPath: string;
  pre: ModelVersionPreprocessor;
}

/** The version's preprocessing exactly as the router loads it (manifest, pinned tokenizer, labels). */
export async function loadBenchModel(
  root: string,
  model: string,
  version: number,
): Promise<BenchModel> {
  const dir = join(root, model);
  const config = parseModelConfig(
    await readFile(join(dir, 'config.pbtxt'), 'utf8'),
    `${model}/config.pbtxt`,
  );
  const versionDir = join(dir, String(version));
  const manifest = await readPreprocessManifest(versionDir);
  const labelFile = config.output.find(
    (o) => o.name === manifest.postprocess.output,
  )?.labelFilename;
  const labels = labelFile ? parseLabels(await readFile(join(dir, labelFile), 'utf8')) : [];
  const typeIds = manifest.inputs.typeIds ?? 'token_type_ids';
  const pre = await new PreprocessingService().load({
    model,
    version,
    versionDir,
    manifest: { ...manifest, inputs: { ...manifest.inputs, typeIds } },
    config,
    labels,
  });
  return { dir, modelPath: join(versionDir, 'model.onnx'), pre };
}
