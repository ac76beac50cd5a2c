import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelRepositoryError } from './model-repository.errors';
import { ModelRepositoryReader, parseLabels } from './model-repository-reader';
import { ManifestError } from './preprocess-manifest.errors';
import { readPreprocessManifest } from './preprocess-manifest-reader';
import { sha256File } from './sha256-file';

const CLASSIFIER = `
name: "intent"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] label_filename: "labels.txt" } ]
unknown_section { x: 1 }
`;

const MANIFEST = {
  pipeline: 'bert-wordpiece',
  pipelineVersion: 1,
  tokenizer: { file: 'tokenizer.json', sha256: 'a'.repeat(64) },
  model: { sha256: 'b'.repeat(64) },
  maxLength: 16,
  hardMaxChars: 1000,
  padding: 'fixed',
  truncation: 'longest_first',
  inputs: { ids: 'input_ids', mask: 'attention_mask' },
  postprocess: { kind: 'classification', output: 'logits', activation: 'softmax', topK: 1 },
};

let root: string;

async function put(path: string, content: string): Promise<void> {
  const full = join(root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'model-repository-'));
  await put('intent/config.pbtxt', CLASSIFIER);
  await put('intent/labels.txt', 'greet\r\nbuy\nrefund\n');
  for (const v of ['1', '2', '10']) await mkdir(join(root, 'intent', v), { recursive: true });
  await mkdir(join(root, 'intent', 'not-a-version'));
  await mkdir(join(root, 'intent', '007'));
  await put('intent/3', 'a file, not a version directory');
  await symlink(join(root, 'intent', '1'), join(root, 'intent', '11'));
  await put('broken/config.pbtxt', 'name: "broken"\nmax_batch_size: "8"\n');
  await mkdir(join(root, 'broken', '1'));
  await put('renamed/config.pbtxt', 'name: "other"');
  await put(
    'nolabels/config.pbtxt',
    'output { name: "o" data_type: TYPE_FP32 dims: [1] label_filename: "l.txt" }',
  );
  await put('every/config.pbtxt', 'version_policy { specific { versions: [1, 4] } }');
  for (const v of ['1', '2']) await mkdir(join(root, 'every', v));
  await mkdir(join(root, 'no-config', '1'), { recursive: true });
  await put('.hidden/config.pbtxt', 'name: ".hidden"');
  await put('stray-file.txt', 'not a model');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ModelRepositoryReader', () => {
  it('lists the directories holding a config.pbtxt, sorted, skipping hidden ones', async () => {
    const names = await new ModelRepositoryReader(root).listModels();
    expect(names).toEqual(['broken', 'every', 'intent', 'nolabels', 'renamed']);
  });

  it('reads a model: config, labels, numeric versions on disk and the selected one', async () => {
    const entry = await new ModelRepositoryReader(root).readModel('intent');
    expect(entry).toMatchObject({
      name: 'intent',
      dir: join(root, 'intent'),
      labels: { logits: ['greet', 'buy', 'refund'] },
      versionsOnDisk: [1, 2, 10, 11],
      versionsSelected: [11],
      warnings: [
        expect.stringMatching(/^intent\/config.pbtxt:7:1: field 'unknown_section' is not used/),
      ],
    });
    expect(entry?.error).toBeUndefined();
    expect(entry?.config?.output[0]?.labelFilename).toBe('labels.txt');
  });

  it('reports a config that does not parse in its entry, with file, line and column', async () => {
    const entries = await new ModelRepositoryReader(root).readAll();
    const broken = entries.find((e) => e.name === 'broken');
    expect(broken).toEqual({
      name: 'broken',
      dir: join(root, 'broken'),
      error: `broken/config.pbtxt:2:17: expected an integer for 'max_batch_size' but found "8"`,
      versionsOnDisk: [1],
      versionsSelected: [],
      warnings: [],
    });
    // The broken model does not hide the healthy ones.
    expect(entries.map((e) => [e.name, e.error === undefined])).toEqual([
      ['broken', false],
      ['every', true],
      ['intent', true],
      ['nolabels', false],
      ['renamed', false],
    ]);
  });

  it('rejects a config whose name differs from its directory, and fills an empty name', async () => {
    const reader = new ModelRepositoryReader(root);
    const renamed = await reader.readModel('renamed');
    expect(renamed?.error).toBe(
      "renamed/config.pbtxt: name 'other' does not match the model directory 'renamed'",
    );
    expect((await reader.readModel('every'))?.config?.name).toBe('every');
  });

  it('reports a missing label file naming the output', async () => {
    const entry = await new ModelRepositoryReader(root).readModel('nolabels');
    expect(entry?.error).toMatch(
      /^nolabels: label file 'l.txt' of output 'o' cannot be read: file not found$/,
    );
    expect(entry?.versionsSelected).toEqual([]);
  });

  it('applies a specific version policy and warns about versions not on disk', async () => {
    const entry = await new ModelRepositoryReader(root).readModel('every');
    expect(entry).toMatchObject({ versionsOnDisk: [1, 2], versionsSelected: [1] });
    expect(entry?.warnings).toEqual([
      'every/config.pbtxt: version 4 named by version_policy has no directory',
    ]);
  });

  it.each(['no-config', 'absent', '../intent', 'intent/1', '.hidden', ''])(
    'returns undefined for %p, which is not a model',
    async (name) => {
      expect(await new ModelRepositoryReader(root).readModel(name)).toBeUndefined();
    },
  );

  it('throws ModelRepositoryError when the root does not exist', async () => {
    const reader = new ModelRepositoryReader(join(root, 'nope'));
    await expect(reader.readAll()).rejects.toThrow(ModelRepositoryError);
    await expect(reader.listModels()).rejects.toMatchObject({ code: 'REPOSITORY_NOT_FOUND' });
  });
});

describe('parseLabels', () => {
  it.each([
    ['a trailing newline', 'a\nb\n', ['a', 'b']],
    ['no trailing newline', 'a\nb', ['a', 'b']],
    ['CRLF and a BOM', '\uFEFFa\r\nb\r\n', ['a', 'b']],
    ['inner blank lines kept', 'a\n\nc\n', ['a', '', 'c']],
    ['an empty file', '', []],
  ])('splits %s', (_name, text, expected) => {
    expect(parseLabels(text)).toEqual(expected);
  });
});

describe('readPreprocessManifest', () => {
  it('reads and validates <versionDir>/preprocess.json', async () => {
    await put('intent/2/preprocess.json', JSON.stringify(MANIFEST));
    const manifest = await readPreprocessManifest(join(root, 'intent', '2'));
    expect(manifest).toEqual(MANIFEST);
  });

  it.each<[string, string | undefined, string, RegExp]>([
    ['missing', undefined, 'MANIFEST_NOT_FOUND', /^intent\/1\/preprocess.json: file not found$/],
    [
      'not JSON',
      '{ "pipeline": ',
      'MANIFEST_UNREADABLE',
      /^intent\/1\/preprocess.json: not valid JSON: /,
    ],
    [
      'invalid',
      JSON.stringify({ ...MANIFEST, maxLength: 1 }),
      'MANIFEST_INVALID',
      /^intent\/1\/preprocess.json: maxLength: must be between 2 and 8192$/,
    ],
  ])('fails with a code when the manifest is %s', async (_name, content, code, message) => {
    const dir = join(root, 'intent', '1');
    await rm(join(dir, 'preprocess.json'), { force: true });
    if (content !== undefined) await writeFile(join(dir, 'preprocess.json'), content);
    const error = await readPreprocessManifest(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestError);
    expect(error).toMatchObject({ code });
    expect((error as ManifestError).message).toMatch(message);
  });
});

describe('sha256File', () => {
  it('hashes a small file', async () => {
    await put('abc.bin', 'abc');
    expect(await sha256File(join(root, 'abc.bin'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('hashes a file larger than one stream chunk like a one-shot digest', async () => {
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
    await writeFile(join(root, 'big.bin'), bytes);
    const expected = createHash('sha256').update(bytes).digest('hex');
    expect(await sha256File(join(root, 'big.bin'))).toBe(expected);
  });

  it('rejects for a missing file', async () => {
    await expect(sha256File(join(root, 'missing.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
