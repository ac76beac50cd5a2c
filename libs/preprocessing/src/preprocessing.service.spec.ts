import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  ModelRepositoryReader,
  parsePreprocessManifest,
  readPreprocessManifest,
  type ModelConfig,
  type PreprocessManifest,
} from '@mesh/model-repository';
import { FIXTURE_TOKENIZER_FILE } from './testing/fixture-tokenizer';
import { PreprocessingMismatchError } from './preprocessing.errors';
import { PreprocessingService } from './preprocessing.service';

const SHA = createHash('sha256').update(readFileSync(FIXTURE_TOKENIZER_FILE)).digest('hex');
const config: Pick<ModelConfig, 'input' | 'output'> = {
  input: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
    name,
    dataType: 'TYPE_INT64',
    dims: [-1],
  })),
  output: [{ name: 'logits', dataType: 'TYPE_FP32', dims: [3] }] as ModelConfig['output'],
};

function manifest(overrides: Record<string, unknown> = {}): PreprocessManifest {
  return parsePreprocessManifest(
    {
      pipeline: 'bert-wordpiece',
      pipelineVersion: 2,
      tokenizer: { file: 'tokenizer.json', sha256: SHA },
      model: { sha256: 'a'.repeat(64) },
      maxLength: 32,
      hardMaxChars: 1000,
      padding: 'dynamic',
      truncation: 'longest_first',
      inputs: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
      postprocess: { kind: 'classification', output: 'logits', activation: 'softmax', topK: 2 },
      ...overrides,
    },
    'spec/1/preprocess.json',
  );
}

describe('PreprocessingService.load', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'preprocessing-spec-'));
    copyFileSync(FIXTURE_TOKENIZER_FILE, join(dir, 'tokenizer.json'));
    writeFileSync(join(dir, 'broken.json'), '{"model": {"type": "BPE"}}');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = (m: PreprocessManifest, service = new PreprocessingService(), cfg = config) =>
    service.load({
      model: 'intent-zh',
      version: 3,
      versionDir: dir,
      manifest: m,
      config: cfg,
      labels: ['a', 'b', 'c'],
    });

  it('loads a consistent version and serves encode, tokenize and postprocess', async () => {
    const v = await load(manifest());
    expect(v.pipeline.id).toBe('bert-wordpiece@2');
    expect(v.tokenizerSha256).toBe(SHA);
    expect(v.tokenize({ text: 'hello' }).tokens).toEqual(['[CLS]', 'hello', '[SEP]']);
    const batch = v.encode([{ text: 'hello world' }]);
    expect(batch.inputIds.shape).toEqual([1, 4]);
    const [p] = v.postprocess({ shape: [1, 3], data: new Float32Array([0, 0, 9]) }, batch);
    expect(p).toMatchObject({ kind: 'classification', label: 'c' });
  });

  it('parses a tokenizer file once per sha256 and shares it between versions', async () => {
    const service = new PreprocessingService();
    const [a, b] = await Promise.all([load(manifest(), service), load(manifest(), service)]);
    expect(a.tokenizerSha256).toBe(b.tokenizerSha256);
    expect((service as unknown as { cache: { size: number } }).cache.size).toBe(1);
  });

  const cases: [string, () => PreprocessManifest, Pick<ModelConfig, 'input' | 'output'>, RegExp][] =
    [
      [
        'UNKNOWN_PIPELINE',
        () => manifest({ pipelineVersion: 9 }),
        config,
        /pipeline bert-wordpiece@9.*has bert-wordpiece@1, bert-wordpiece@2/,
      ],
      [
        'PIPELINE_OPTION_MISMATCH',
        () => manifest({ padding: 'fixed' }),
        config,
        /padding "fixed" \(bert-wordpiece@2 pads "dynamic"\)/,
      ],
      [
        'PIPELINE_OPTION_MISMATCH',
        () => manifest({ truncation: 'only_second' }),
        config,
        /truncation "only_second"/,
      ],
      [
        'TOKENIZER_MISSING',
        () => manifest({ tokenizer: { file: 'nope.json', sha256: SHA } }),
        config,
        /cannot read tokenizer file nope.json/,
      ],
      [
        'TOKENIZER_SHA_MISMATCH',
        () => manifest({ tokenizer: { file: 'tokenizer.json', sha256: 'b'.repeat(64) } }),
        config,
        new RegExp(`sha256 ${SHA} but preprocess.json pins b{64}`),
      ],
      [
        'TOKENIZER_INVALID',
        () =>
          manifest({
            tokenizer: {
              file: 'broken.json',
              sha256: createHash('sha256').update('{"model": {"type": "BPE"}}').digest('hex'),
            },
          }),
        config,
        /not a usable BERT WordPiece tokenizer/,
      ],
      [
        'INPUT_NAME_MISMATCH',
        () => manifest({ inputs: { ids: 'input_ids', mask: 'mask', typeIds: 'token_type_ids' } }),
        config,
        /inputs \[mask\] are not in config.pbtxt; config.pbtxt inputs \[attention_mask\] are not in preprocess.json/,
      ],
      [
        'INPUT_NAME_MISMATCH',
        () => manifest({ inputs: { ids: 'input_ids', mask: 'attention_mask' } }),
        config,
        /config.pbtxt inputs \[token_type_ids\] are not in preprocess.json/,
      ],
      [
        'OUTPUT_NAME_MISMATCH',
        () =>
          manifest({
            postprocess: {
              kind: 'embedding',
              output: 'last_hidden_state',
              pooling: 'mean',
              normalize: true,
            },
          }),
        config,
        /output "last_hidden_state" is not a config.pbtxt output/,
      ],
    ];

  it.each(cases)(
    'refuses with %s and one message naming model, version and the difference',
    async (code, m, cfg, detail) => {
      const err = await load(m(), new PreprocessingService(), cfg).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PreprocessingMismatchError);
      expect(err).toMatchObject({ code, model: 'intent-zh', version: '3' });
      expect((err as Error).message).toMatch(/^model intent-zh version 3 is unroutable: /);
      expect((err as Error).message).toMatch(detail);
    },
  );
});

describe('PreprocessingService on the demo model repository', () => {
  const root = join(__dirname, '..', '..', '..', 'model_repository');

  it('loads every demo model version and encodes with its pipeline', async () => {
    const service = new PreprocessingService();
    const entries = await new ModelRepositoryReader(root).readAll();
    expect(entries.length).toBeGreaterThan(0);
    const loaded: string[] = [];
    for (const entry of entries) {
      for (const version of entry.versionsOnDisk) {
        const versionDir = join(entry.dir, String(version));
        const m = await readPreprocessManifest(versionDir);
        const labels = entry.labels?.[m.postprocess.output];
        const v = await service.load({
          model: entry.name,
          version,
          versionDir,
          manifest: m,
          config: entry.config!,
          labels,
        });
        const batch = v.encode([
          { text: '今天天气怎么样？' },
          { text: 'How is the weather today?' },
        ]);
        expect(batch.seqLength).toBe(
          m.padding === 'fixed' ? m.maxLength : Math.max(...batch.tokenCounts),
        );
        loaded.push(`${entry.name}/${version}@${m.pipelineVersion}`);
      }
    }
    expect(loaded.length).toBeGreaterThanOrEqual(7);
  });
});
