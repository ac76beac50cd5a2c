import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseModelConfig, parseModelConfigDetailed } from './model-config.parser';
import type { ModelConfig } from './model-config.types';
import { pbtxtString, writeModelConfig } from './model-config-writer';

const ROOT = join(__dirname, '../../..');
const DEMO = join(ROOT, 'model_repository');
const demoConfigs = readdirSync(DEMO, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
  .map((d) => join(DEMO, d.name, 'config.pbtxt'));

const roundTrip = (config: ModelConfig): ModelConfig =>
  parseModelConfig(writeModelConfig(config), 'written/config.pbtxt');

/** Every field the typed config models, set to non-default values. */
const EVERYTHING: ModelConfig = {
  name: 'odd "name" \\ with\ttab and 中文',
  platform: 'onnxruntime_onnx',
  backend: 'onnxruntime',
  maxBatchSize: 16,
  input: [
    {
      name: 'input_ids',
      dataType: 'TYPE_INT64',
      format: 'FORMAT_NONE',
      dims: [-1],
      reshape: { shape: [1, -1] },
      isShapeTensor: false,
      allowRaggedBatch: true,
      optional: false,
    },
    { name: 'attention_mask', dataType: 'TYPE_INT64', dims: [-1], optional: true },
  ],
  output: [
    {
      name: 'logits',
      dataType: 'TYPE_FP32',
      dims: [4],
      reshape: { shape: [4] },
      labelFilename: 'labels.txt',
      isShapeTensor: false,
    },
  ],
  versionPolicy: { specific: { versions: [1, 3] } },
  dynamicBatching: {
    preferredBatchSize: [4, 8],
    maxQueueDelayMicroseconds: 100,
    preserveOrdering: true,
    priorityLevels: 2,
    defaultPriorityLevel: 2,
    defaultQueuePolicy: {
      timeoutAction: 'DELAY',
      defaultTimeoutMicroseconds: 5,
      allowTimeoutOverride: true,
      maxQueueSize: 7,
    },
    priorityQueuePolicy: {
      1: {
        timeoutAction: 'REJECT',
        defaultTimeoutMicroseconds: 0,
        allowTimeoutOverride: false,
        maxQueueSize: 3,
      },
    },
  },
  instanceGroup: [
    { name: 'cpu', count: 2, kind: 'KIND_CPU' },
    { count: 1, kind: 'KIND_GPU', gpus: [0, 1] },
  ],
  parameters: {
    model_sha256_v1: { stringValue: 'a'.repeat(64) },
    intra_op_thread_count: { stringValue: '2' },
  },
  optimization: {
    graph: { level: 1 },
    priority: 'PRIORITY_MAX',
    executionAccelerators: {
      gpuExecutionAccelerator: [{ name: 'tensorrt', parameters: { precision_mode: 'FP16' } }],
      cpuExecutionAccelerator: [{ name: 'openvino', parameters: {} }],
    },
    inputPinnedMemory: { enable: false },
    outputPinnedMemory: { enable: true },
    gatherKernelBufferThreshold: 9,
    eagerBatching: true,
  },
  modelWarmup: [
    {
      name: 'warm',
      batchSize: 2,
      inputs: {
        input_ids: { dataType: 'TYPE_INT64', dims: [8], zeroData: true },
        attention_mask: { dataType: 'TYPE_INT64', dims: [8], inputDataFile: 'mask.bin' },
      },
      count: 3,
    },
  ],
  defaultModelFilename: 'model.onnx',
};

describe('writeModelConfig', () => {
  it.each(demoConfigs)('rewrites the demo config %s byte for byte', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(writeModelConfig(parseModelConfig(text, file))).toBe(text);
  });

  it.each(['report-a.config.pbtxt', 'report-c.config.pbtxt'])(
    'round-trips the field-report config %s through the parser',
    (name) => {
      const config = parseModelConfig(readFileSync(join(__dirname, 'testing', name), 'utf8'), name);
      expect(roundTrip(config)).toEqual(config);
    },
  );

  it('round-trips every modelled field, with nothing left for the parser to ignore', () => {
    const text = writeModelConfig(EVERYTHING);
    const parsed = parseModelConfigDetailed(text, 'everything/config.pbtxt');
    expect(parsed.ignoredFields).toEqual([]);
    expect(parsed.config).toEqual(EVERYTHING);
  });

  it('leaves out what the parser defaults, and writes version policies in every form', () => {
    const minimal: ModelConfig = {
      name: 'm',
      platform: '',
      backend: 'onnxruntime',
      maxBatchSize: 0,
      input: [],
      output: [],
      instanceGroup: [],
      parameters: {},
      versionPolicy: { latest: { numVersions: 2 } },
    };
    const text = writeModelConfig(minimal);
    expect(text).toBe(
      'name: "m"\nbackend: "onnxruntime"\nmax_batch_size: 0\nversion_policy: { latest { num_versions: 2 } }\n',
    );
    expect(roundTrip(minimal)).toEqual(minimal);
  });

  it('keeps an instance group without a count without one, so the host still chooses', () => {
    const config = parseModelConfig('instance_group [ { kind: KIND_CPU } ]', 'm/config.pbtxt');
    const text = writeModelConfig(config);
    expect(text).not.toMatch(/count/);
    expect(roundTrip(config).instanceGroup).toEqual([
      { count: 1, countUnset: true, kind: 'KIND_CPU' },
    ]);
  });
});

describe('pbtxtString', () => {
  it('escapes quotes, backslashes and control characters and keeps other text', () => {
    expect(pbtxtString('a"b\\c\nd\te\u0001f 中')).toBe('"a\\"b\\\\c\\nd\\te\\001f 中"');
  });
});
