import { parsePreprocessManifest, type PreprocessManifest } from './preprocess-manifest.schema';

/**
 * Writes `preprocess.json` in the pinned key order (ARCHITECTURE.md), two-space indented with a
 * trailing newline, so equal manifests are equal bytes. The manifest is validated first:
 * nothing invalid is ever written. `file` labels validation errors.
 */
export function writePreprocessManifest(manifest: PreprocessManifest, file: string): string {
  const m = parsePreprocessManifest(manifest, file);
  const post = m.postprocess;
  const ordered = {
    pipeline: m.pipeline,
    pipelineVersion: m.pipelineVersion,
    tokenizer: { file: m.tokenizer.file, sha256: m.tokenizer.sha256 },
    model: { sha256: m.model.sha256 },
    maxLength: m.maxLength,
    hardMaxChars: m.hardMaxChars,
    padding: m.padding,
    truncation: m.truncation,
    inputs: {
      ids: m.inputs.ids,
      mask: m.inputs.mask,
      ...(m.inputs.typeIds !== undefined ? { typeIds: m.inputs.typeIds } : {}),
    },
    postprocess:
      post.kind === 'classification'
        ? { kind: post.kind, output: post.output, activation: post.activation, topK: post.topK }
        : {
            kind: post.kind,
            output: post.output,
            pooling: post.pooling,
            normalize: post.normalize,
          },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
