import { MODEL_SIZES } from './bert-dimensions';
import { DEMO_MODELS, seedOf, type DemoModel } from './demo-catalog';
import {
  bertSpecFor,
  renderConfigPbtxt,
  renderLabels,
  renderPreprocessJson,
  renderRepositoryText,
  sha256Hex,
} from './repository-files';

const classifier: DemoModel = {
  name: 'demo-cls',
  output: { kind: 'classification', labels: ['no', 'yes'] },
  versions: [
    { version: 1, pipelineVersion: 1, padding: 'fixed' },
    { version: 3, pipelineVersion: 2, padding: 'dynamic' },
  ],
};
const embedder: DemoModel = {
  name: 'demo-embed',
  output: { kind: 'embedding', pooling: 'mean', normalize: true },
  versions: [{ version: 1, pipelineVersion: 2, padding: 'dynamic' }],
};

const INPUTS = ['input_ids', 'attention_mask', 'token_type_ids']
  .map((n) => `  {\n    name: "${n}"\n    data_type: TYPE_INT64\n    dims: [ -1 ]\n  }`)
  .join(',\n');
const TAIL = [
  'dynamic_batching {',
  '  preferred_batch_size: [ 8, 16, 32 ]',
  '  max_queue_delay_microseconds: 2000',
  '  priority_levels: 2',
  '  default_priority_level: 1',
  '}',
  'instance_group [',
  '  {',
  '    count: 1',
  '    kind: KIND_CPU',
  '  }',
  ']',
  'version_policy: { all { } }',
].join('\n');

describe('renderConfigPbtxt', () => {
  it('writes the pinned Triton config with one sha256 parameter per version', () => {
    const text = renderConfigPbtxt(
      classifier,
      MODEL_SIZES.tiny,
      new Map([
        [1, 'a'.repeat(64)],
        [3, 'b'.repeat(64)],
      ]),
    );
    expect(text).toBe(
      [
        'name: "demo-cls"',
        'platform: "onnxruntime_onnx"',
        'max_batch_size: 64',
        `input [\n${INPUTS}\n]`,
        'output [\n  {\n    name: "logits"\n    data_type: TYPE_FP32\n    dims: [ 2 ]\n    label_filename: "labels.txt"\n  }\n]',
        TAIL,
        `parameters {\n  key: "model_sha256_v1"\n  value: { string_value: "${'a'.repeat(64)}" }\n}`,
        `parameters {\n  key: "model_sha256_v3"\n  value: { string_value: "${'b'.repeat(64)}" }\n}`,
        '',
      ].join('\n'),
    );
  });

  it('gives an embedding model last_hidden_state [-1, hidden] without a label file', () => {
    const text = renderConfigPbtxt(embedder, MODEL_SIZES.small, new Map([[1, 'c'.repeat(64)]]));
    expect(text).toContain(
      'output [\n  {\n    name: "last_hidden_state"\n    data_type: TYPE_FP32\n    dims: [ -1, 384 ]\n  }\n]',
    );
    expect(text).not.toContain('label_filename');
  });

  it('refuses a version without a model hash', () => {
    expect(() => renderConfigPbtxt(classifier, MODEL_SIZES.tiny, new Map([[1, 'a']]))).toThrow(
      /version 3/,
    );
  });
});

describe('renderPreprocessJson', () => {
  it('writes the pinned manifest for a classifier, keys in order', () => {
    const text = renderPreprocessJson(
      classifier,
      classifier.versions[0]!,
      't'.repeat(64),
      'm'.repeat(64),
    );
    expect(text).toBe(
      `${JSON.stringify(
        {
          pipeline: 'bert-wordpiece',
          pipelineVersion: 1,
          tokenizer: { file: 'tokenizer.json', sha256: 't'.repeat(64) },
          model: { sha256: 'm'.repeat(64) },
          maxLength: 128,
          hardMaxChars: 20000,
          padding: 'fixed',
          truncation: 'longest_first',
          inputs: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
          postprocess: { kind: 'classification', output: 'logits', activation: 'softmax', topK: 3 },
        },
        null,
        2,
      )}\n`,
    );
  });

  it('describes embedding postprocessing', () => {
    const manifest = JSON.parse(renderPreprocessJson(embedder, embedder.versions[0]!, 't', 'm'));
    expect(manifest.postprocess).toEqual({
      kind: 'embedding',
      output: 'last_hidden_state',
      pooling: 'mean',
      normalize: true,
    });
    expect(manifest.padding).toBe('dynamic');
  });
});

describe('renderRepositoryText', () => {
  it('lays out per-model and per-version files with the tokenizer copied into each version', () => {
    const files = renderRepositoryText(
      [classifier, embedder],
      MODEL_SIZES.tiny,
      '{"tok":1}\n',
      (m, v) => sha256Hex(`${m.name}/${v.version}`),
    );
    expect([...files.keys()]).toEqual([
      'demo-cls/config.pbtxt',
      'demo-cls/labels.txt',
      'demo-cls/1/preprocess.json',
      'demo-cls/1/tokenizer.json',
      'demo-cls/3/preprocess.json',
      'demo-cls/3/tokenizer.json',
      'demo-embed/config.pbtxt',
      'demo-embed/1/preprocess.json',
      'demo-embed/1/tokenizer.json',
    ]);
    expect(files.get('demo-cls/labels.txt')).toBe('no\nyes\n');
    const manifest = JSON.parse(files.get('demo-cls/3/preprocess.json')!);
    expect(manifest.tokenizer.sha256).toBe(sha256Hex('{"tok":1}\n'));
    expect(manifest.model.sha256).toBe(sha256Hex('demo-cls/3'));
  });
});

describe('demo catalogue', () => {
  it('holds the pinned models, versions and pipelines', () => {
    const summary = DEMO_MODELS.map((m) => [
      m.name,
      m.versions.map((v) => `${v.version}@${v.pipelineVersion}/${v.padding}`),
    ]);
    expect(summary).toEqual([
      ['question-type-zh', ['1@1/fixed', '2@2/dynamic']],
      ['intent-zh', ['1@1/fixed', '2@2/dynamic', '3@2/dynamic']],
      ['sentiment-en', ['1@2/dynamic']],
      ['text-embed-zh', ['1@2/dynamic']],
    ]);
    expect(renderLabels(DEMO_MODELS[2]!)).toBe('negative\nneutral\npositive\n');
    expect(renderLabels(DEMO_MODELS[3]!)).toBeUndefined();
  });

  it('seeds every version differently and maps heads to the output kind', () => {
    const seeds = DEMO_MODELS.flatMap((m) => m.versions.map((v) => seedOf(m, v)));
    expect(new Set(seeds).size).toBe(seeds.length);
    const embed = DEMO_MODELS[3]!;
    expect(bertSpecFor(embed, embed.versions[0]!, MODEL_SIZES.tiny, 100).head).toEqual({
      kind: 'encoder',
    });
    const intent = DEMO_MODELS[1]!;
    expect(bertSpecFor(intent, intent.versions[2]!, MODEL_SIZES.tiny, 100)).toMatchObject({
      seed: 'intent-zh@3',
      head: { kind: 'classification', numLabels: 6 },
    });
  });
});
