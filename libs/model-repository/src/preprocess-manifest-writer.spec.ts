import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestError } from './preprocess-manifest.errors';
import { parsePreprocessManifest, type PreprocessManifest } from './preprocess-manifest.schema';
import { writePreprocessManifest } from './preprocess-manifest-writer';

const DEMO = join(__dirname, '../../..', 'model_repository');
const demoManifests = readdirSync(DEMO, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
  .flatMap((d) =>
    readdirSync(join(DEMO, d.name))
      .filter((v) => /^\d+$/.test(v))
      .map((v) => join(DEMO, d.name, v, 'preprocess.json')),
  );

const SHA = 'ab'.repeat(32);

const manifest = (over: Partial<PreprocessManifest> = {}): PreprocessManifest => ({
  pipeline: 'bert-wordpiece',
  pipelineVersion: 2,
  tokenizer: { file: 'tokenizer.json', sha256: SHA },
  model: { sha256: SHA },
  maxLength: 64,
  hardMaxChars: 20000,
  padding: 'dynamic',
  truncation: 'longest_first',
  inputs: { ids: 'input_ids', mask: 'attention_mask' },
  postprocess: { kind: 'embedding', output: 'last_hidden_state', pooling: 'cls', normalize: true },
  ...over,
});

describe('writePreprocessManifest', () => {
  it('finds the demo manifests', () => {
    expect(demoManifests.length).toBeGreaterThanOrEqual(7);
  });

  it.each(demoManifests)('rewrites the demo manifest %s byte for byte', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(writePreprocessManifest(parsePreprocessManifest(JSON.parse(text), file), file)).toBe(
      text,
    );
  });

  it('writes the pinned key order whatever order the object has, without typeIds when absent', () => {
    const scrambled = Object.fromEntries(
      Object.entries(manifest()).reverse(),
    ) as PreprocessManifest;
    const text = writePreprocessManifest(scrambled, 'm/1/preprocess.json');
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'pipeline',
      'pipelineVersion',
      'tokenizer',
      'model',
      'maxLength',
      'hardMaxChars',
      'padding',
      'truncation',
      'inputs',
      'postprocess',
    ]);
    expect(text).toContain(
      '"inputs": {\n    "ids": "input_ids",\n    "mask": "attention_mask"\n  }',
    );
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('refuses to write an invalid manifest, naming the field', () => {
    expect(() =>
      writePreprocessManifest(manifest({ maxLength: 1 }), 'm/1/preprocess.json'),
    ).toThrow(ManifestError);
    expect(() =>
      writePreprocessManifest(manifest({ maxLength: 1 }), 'm/1/preprocess.json'),
    ).toThrow('m/1/preprocess.json: maxLength: must be between 2 and 8192');
  });
});
