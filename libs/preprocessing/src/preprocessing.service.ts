import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { BatchEncoder } from './batch-encoder';
import type { BertTokenizer } from './bert-tokenizer';
import { ModelVersionPreprocessor } from './model-version-preprocessor';
import type { ModelConfig, PreprocessManifest } from '@mesh/model-repository';
import { OutputPostprocessor } from './output-postprocessor';
import { PipelineRegistry, type PipelineDefinition } from './pipeline-registry';
import { PreprocessingMismatchError, type PreprocessingMismatchCode } from './preprocessing.errors';
import { TokenizerCache, type TokenizerFile } from './tokenizer-cache';

export interface LoadModelVersionArgs {
  model: string;
  version: string | number;
  /** `model_repository/<model>/<version>`: the manifest's tokenizer file is relative to it. */
  versionDir: string;
  /** The version's parsed `preprocess.json`. */
  manifest: PreprocessManifest;
  /** The model's parsed `config.pbtxt` (its input and output names are checked). */
  config: Pick<ModelConfig, 'input' | 'output'>;
  /** `labels.txt` lines for classification outputs (missing labels read as `LABEL_<i>`). */
  labels?: readonly string[];
}

/**
 * Loads model versions' preprocessing. A load checks, in order: the manifest's
 * `pipeline@version` exists in this build and its padding/truncation/activation are what that
 * pipeline does; the manifest's input (and output) names are the model config's; the
 * tokenizer file exists and its sha256 is the pinned one; the file parses. Any failure is one
 * PreprocessingMismatchError and the caller must not route to that version. Tokenizers are
 * parsed once per file hash and shared.
 */
export class PreprocessingService {
  constructor(
    readonly registry: PipelineRegistry = new PipelineRegistry(),
    private readonly cache: TokenizerCache = new TokenizerCache(),
    /** See EncoderOptions.padMultiple; applies to every version this service loads. */
    private readonly padMultiple = 0,
  ) {}

  async load(args: LoadModelVersionArgs): Promise<ModelVersionPreprocessor> {
    const fail = this.failer(args);
    const m = args.manifest;
    const pipeline = this.checkPipeline(m, fail);
    this.checkNames(m, args.config, fail);
    const file = await this.readTokenizer(args.versionDir, m.tokenizer.file, fail);
    if (file.sha256 !== m.tokenizer.sha256.toLowerCase()) {
      fail(
        'TOKENIZER_SHA_MISMATCH',
        `${m.tokenizer.file} has sha256 ${file.sha256} but preprocess.json pins ${m.tokenizer.sha256}`,
      );
    }
    const tokenizer = this.parse(file, m.tokenizer.file, fail);
    const minLength = tokenizer.specialCount(true) + 2;
    if (m.maxLength < minLength || m.hardMaxChars < 1) {
      fail(
        'PIPELINE_OPTION_MISMATCH',
        `maxLength ${m.maxLength} / hardMaxChars ${m.hardMaxChars} leave no room for text (maxLength must be >= ${minLength})`,
      );
    }
    const encoder = new BatchEncoder(tokenizer, pipeline, {
      maxLength: m.maxLength,
      hardMaxChars: m.hardMaxChars,
      inputNames: m.inputs,
      padMultiple: this.padMultiple,
    });
    const post = new OutputPostprocessor(m.postprocess, args.labels ?? []);
    return new ModelVersionPreprocessor(
      args.model,
      String(args.version),
      pipeline,
      m,
      file.sha256,
      encoder,
      post,
    );
  }

  private checkPipeline(m: PreprocessManifest, fail: Fail): PipelineDefinition {
    const pipeline = this.registry.get(m.pipeline, m.pipelineVersion);
    const id = PipelineRegistry.pipelineId(m.pipeline, m.pipelineVersion);
    if (!pipeline) {
      const known = this.registry
        .list()
        .map((p) => p.id)
        .join(', ');
      return fail(
        'UNKNOWN_PIPELINE',
        `preprocess.json names pipeline ${id}, which this build does not have (it has ${known})`,
      );
    }
    const wrong: string[] = [];
    if (m.padding !== pipeline.padding)
      wrong.push(`padding "${m.padding}" (${id} pads "${pipeline.padding}")`);
    if (!pipeline.truncation.includes(m.truncation)) {
      wrong.push(`truncation "${m.truncation}" (${id} does ${pipeline.truncation.join(' / ')})`);
    }
    if (wrong.length > 0)
      fail('PIPELINE_OPTION_MISMATCH', `preprocess.json declares ${wrong.join('; ')}`);
    return pipeline;
  }

  private checkNames(
    m: PreprocessManifest,
    config: Pick<ModelConfig, 'input' | 'output'>,
    fail: Fail,
  ): void {
    const declared = [m.inputs.ids, m.inputs.mask, m.inputs.typeIds].filter((n) => n !== undefined);
    const actual = config.input.map((i) => i.name);
    const missing = declared.filter((n) => !actual.includes(n));
    const extra = actual.filter((n) => !declared.includes(n));
    if (missing.length > 0 || extra.length > 0) {
      const parts = [
        missing.length > 0
          ? `preprocess.json inputs [${missing.join(', ')}] are not in config.pbtxt`
          : '',
        extra.length > 0
          ? `config.pbtxt inputs [${extra.join(', ')}] are not in preprocess.json`
          : '',
      ];
      fail(
        'INPUT_NAME_MISMATCH',
        `${parts.filter(Boolean).join('; ')} (config.pbtxt has [${actual.join(', ')}])`,
      );
    }
    const outputs = config.output.map((o) => o.name);
    if (!outputs.includes(m.postprocess.output)) {
      fail(
        'OUTPUT_NAME_MISMATCH',
        `postprocess output "${m.postprocess.output}" is not a config.pbtxt output ([${outputs.join(', ')}])`,
      );
    }
  }

  private async readTokenizer(
    versionDir: string,
    file: string,
    fail: Fail,
  ): Promise<TokenizerFile> {
    const path = join(versionDir, file);
    const rel = relative(versionDir, path);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      fail('TOKENIZER_MISSING', `tokenizer file "${file}" is outside the version directory`);
    }
    try {
      return TokenizerCache.hash(await readFile(path));
    } catch (err: unknown) {
      return fail(
        'TOKENIZER_MISSING',
        `cannot read tokenizer file ${file}: ${(err as Error).message}`,
      );
    }
  }

  private parse(file: TokenizerFile, name: string, fail: Fail): BertTokenizer {
    try {
      return this.cache.get(file);
    } catch (err: unknown) {
      return fail(
        'TOKENIZER_INVALID',
        `${name} is not a usable BERT WordPiece tokenizer: ${(err as Error).message}`,
      );
    }
  }

  private failer(args: LoadModelVersionArgs): Fail {
    return (code, detail) => {
      throw new PreprocessingMismatchError(code, args.model, String(args.version), detail);
    };
  }
}

type Fail = (code: PreprocessingMismatchCode, detail: string) => never;
