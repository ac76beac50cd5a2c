import { ManifestError } from './preprocess-manifest.errors';
import { parsePreprocessManifest, type PreprocessManifest } from './preprocess-manifest.schema';

const HEX = 'ab'.repeat(32);
const FILE = 'question-type-zh/2/preprocess.json';

function valid(): Record<string, unknown> {
  return {
    pipeline: 'bert-wordpiece',
    pipelineVersion: 2,
    tokenizer: { file: 'tokenizer.json', sha256: HEX },
    model: { sha256: HEX },
    maxLength: 128,
    hardMaxChars: 20000,
    padding: 'dynamic',
    truncation: 'longest_first',
    inputs: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
    postprocess: { kind: 'classification', output: 'logits', activation: 'softmax', topK: 3 },
  };
}

/** `valid()` with one dotted path set (or deleted when value is undefined). */
function withField(path: string, value: unknown): Record<string, unknown> {
  const manifest = valid();
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let target = manifest;
  for (const key of keys) target = target[key] as Record<string, unknown>;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return manifest;
}

function manifestError(json: unknown): ManifestError {
  try {
    parsePreprocessManifest(json, FILE);
  } catch (error: unknown) {
    if (error instanceof ManifestError) return error;
    throw error;
  }
  throw new Error('expected a ManifestError');
}

describe('parsePreprocessManifest', () => {
  it('accepts the pinned classification manifest as is', () => {
    expect(parsePreprocessManifest(valid(), FILE)).toEqual<PreprocessManifest>(
      valid() as PreprocessManifest,
    );
  });

  it('accepts an embedding manifest without token type ids', () => {
    const json = withField('postprocess', {
      kind: 'embedding',
      output: 'last_hidden_state',
      pooling: 'mean',
      normalize: true,
    });
    delete (json.inputs as Record<string, unknown>).typeIds;
    const manifest = parsePreprocessManifest(json, FILE);
    expect(manifest.postprocess).toEqual({
      kind: 'embedding',
      output: 'last_hidden_state',
      pooling: 'mean',
      normalize: true,
    });
    expect(manifest.inputs).toEqual({ ids: 'input_ids', mask: 'attention_mask' });
  });

  it('lower-cases upper-case hex digests', () => {
    const manifest = parsePreprocessManifest(withField('model.sha256', HEX.toUpperCase()), FILE);
    expect(manifest.model.sha256).toBe(HEX);
  });

  it.each([
    ['fixed padding at the smallest length', { padding: 'fixed', maxLength: 2 }],
    ['the largest length', { maxLength: 8192 }],
    ['a tokenizer in a subdirectory', { tokenizer: { file: 'tok/tokenizer.json', sha256: HEX } }],
    [
      'sigmoid, top-1',
      { postprocess: { kind: 'classification', output: 'o', activation: 'sigmoid', topK: 1 } },
    ],
  ])('accepts %s', (_name, patch) => {
    expect(() => parsePreprocessManifest({ ...valid(), ...patch }, FILE)).not.toThrow();
  });

  it('names the file and the field, as in the docs', () => {
    const error = manifestError(withField('tokenizer.sha256', 'abc'));
    expect(error.message).toBe(`${FILE}: tokenizer.sha256: must be 64 hex characters`);
    expect(error).toMatchObject({ code: 'MANIFEST_INVALID', file: FILE });
  });

  it.each<[string, string, unknown, string]>([
    ['a missing pipeline', 'pipeline', undefined, 'pipeline: is required'],
    ['an empty pipeline', 'pipeline', '', 'pipeline: must not be empty'],
    [
      'a string pipeline version',
      'pipelineVersion',
      '2',
      'pipelineVersion: must be a number (got string)',
    ],
    [
      'a zero pipeline version',
      'pipelineVersion',
      0,
      'pipelineVersion: must be a positive integer',
    ],
    [
      'a fractional pipeline version',
      'pipelineVersion',
      1.5,
      'pipelineVersion: must be an integer (got float)',
    ],
    ['a missing tokenizer', 'tokenizer', undefined, 'tokenizer: is required'],
    [
      'a tokenizer path with ..',
      'tokenizer.file',
      '../other/tokenizer.json',
      "tokenizer.file: must not contain '..'",
    ],
    [
      'an absolute tokenizer path',
      'tokenizer.file',
      '/etc/tokenizer.json',
      'tokenizer.file: must be relative to the version directory',
    ],
    [
      'a short tokenizer digest',
      'tokenizer.sha256',
      'abc',
      'tokenizer.sha256: must be 64 hex characters',
    ],
    [
      'a non-hex model digest',
      'model.sha256',
      'g'.repeat(64),
      'model.sha256: must be 64 hex characters',
    ],
    ['a missing model digest', 'model', undefined, 'model: is required'],
    ['maxLength below 2', 'maxLength', 1, 'maxLength: must be between 2 and 8192'],
    ['maxLength above 8192', 'maxLength', 8193, 'maxLength: must be between 2 and 8192'],
    ['a zero hardMaxChars', 'hardMaxChars', 0, 'hardMaxChars: must be a positive integer'],
    [
      'an unknown padding',
      'padding',
      'max_length',
      `padding: must be one of 'fixed', 'dynamic' (got "max_length")`,
    ],
    [
      'truncation none',
      'truncation',
      'none',
      `truncation: must be one of 'longest_first', 'only_first', 'only_second' (got "none")`,
    ],
    ['a missing mask input', 'inputs.mask', undefined, 'inputs.mask: is required'],
    ['duplicate input names', 'inputs.mask', 'input_ids', 'inputs: input names must be distinct'],
    [
      'an unknown postprocess kind',
      'postprocess.kind',
      'ner',
      "postprocess.kind: must be one of 'classification', 'embedding'",
    ],
    [
      'an unknown activation',
      'postprocess.activation',
      'relu',
      `postprocess.activation: must be one of 'softmax', 'sigmoid', 'none' (got "relu")`,
    ],
    ['a zero topK', 'postprocess.topK', 0, 'postprocess.topK: must be a positive integer'],
    [
      'embedding fields on a classification',
      'postprocess.pooling',
      'mean',
      'postprocess.pooling: unknown field',
    ],
    ['an unknown top-level field', 'maxlength', 64, 'maxlength: unknown field'],
    ['an unknown nested field', 'tokenizer.path', 'x', 'tokenizer.path: unknown field'],
  ])('rejects %s', (_name, path, value, expected) => {
    const error = manifestError(withField(path, value));
    expect(error.code).toBe('MANIFEST_INVALID');
    expect(error.message).toBe(`${FILE}: ${expected}`);
  });

  it.each([
    [
      'an unknown pooling',
      { kind: 'embedding', output: 'o', pooling: 'max', normalize: true },
      `postprocess.pooling: must be one of 'cls', 'mean' (got "max")`,
    ],
    [
      'a missing normalize',
      { kind: 'embedding', output: 'o', pooling: 'cls' },
      'postprocess.normalize: is required',
    ],
  ])('rejects an embedding postprocess with %s', (_name, postprocess, expected) => {
    expect(manifestError({ ...valid(), postprocess }).message).toBe(`${FILE}: ${expected}`);
  });

  it.each([
    ['null', null, '(root): must be an object (got null)'],
    ['an array', [], '(root): must be an object (got array)'],
  ])('rejects %s as the document', (_name, json, expected) => {
    expect(manifestError(json).message).toBe(`${FILE}: ${expected}`);
  });

  it('lists every bad field at once', () => {
    const error = manifestError({ ...valid(), maxLength: 0, padding: 'x', extra: 1 });
    expect(error.issues.map((i) => i.path).sort()).toEqual(['extra', 'maxLength', 'padding']);
    expect(error.message.split('; ')).toHaveLength(3);
  });
});
