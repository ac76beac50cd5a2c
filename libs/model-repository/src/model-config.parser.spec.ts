import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelConfigParseError } from './model-config.errors';
import { parseModelConfig, parseModelConfigDetailed } from './model-config.parser';
import type { ModelConfig } from './model-config.types';

const fixture = (name: string) => readFileSync(join(__dirname, 'testing', name), 'utf8');

function parseError(text: string): ModelConfigParseError {
  try {
    parseModelConfig(text, 'config.pbtxt');
  } catch (error: unknown) {
    if (error instanceof ModelConfigParseError) return error;
    throw error;
  }
  throw new Error(`expected an error for ${JSON.stringify(text)}`);
}

describe('parseModelConfig on the seed configs', () => {
  it('reads Report A (TorchScript, fixed [1, 512] INT64 inputs, no batching)', () => {
    const config = parseModelConfig(fixture('report-a.config.pbtxt'), 'report-a/config.pbtxt');
    expect(config).toEqual<ModelConfig>({
      name: 'pytorch-model',
      platform: 'pytorch_libtorch',
      backend: '',
      maxBatchSize: 0,
      input: [
        { name: 'INPUT__0', dataType: 'TYPE_INT64', dims: [1, 512] },
        { name: 'INPUT__1', dataType: 'TYPE_INT64', dims: [1, 512] },
      ],
      output: [{ name: 'OUTPUT__0', dataType: 'TYPE_INT64', dims: [1, 1] }],
      instanceGroup: [{ count: 1, kind: 'KIND_AUTO' }],
      parameters: {},
    });
  });

  it('reads Report C (ONNX, max_batch_size 32, -1 dims, dynamic batching, two GPUs)', () => {
    const config = parseModelConfig(fixture('report-c.config.pbtxt'), 'report-c/config.pbtxt');
    expect(config).toEqual<ModelConfig>({
      name: 'bert_onnx',
      platform: 'onnxruntime_onnx',
      backend: '',
      maxBatchSize: 32,
      input: [
        { name: 'input_ids', dataType: 'TYPE_INT64', dims: [-1, -1] },
        { name: 'attention_mask', dataType: 'TYPE_INT64', dims: [-1, -1] },
        { name: 'token_type_ids', dataType: 'TYPE_INT64', dims: [-1, -1] },
      ],
      output: [
        { name: 'last_hidden_state', dataType: 'TYPE_FP32', dims: [-1, -1, 768] },
        { name: 'pooler_output', dataType: 'TYPE_FP32', dims: [-1, 768] },
      ],
      dynamicBatching: {
        preferredBatchSize: [8, 16, 32],
        maxQueueDelayMicroseconds: 5000,
        preserveOrdering: false,
        priorityLevels: 0,
        defaultPriorityLevel: 0,
      },
      instanceGroup: [{ count: 2, kind: 'KIND_GPU', gpus: [0, 1] }],
      parameters: {},
    });
  });
});

const FULL = `
# A config using every modelled section.
name: "intent-zh"
backend: "onnxruntime"
platform: "onnxruntime_onnx"
max_batch_size: 64
default_model_filename: "model.onnx"
version_policy: { specific: { versions: [1, 3] } }
input {
  name: "input_ids"
  data_type: TYPE_INT64
  format: FORMAT_NONE
  dims: [ -1 ]
  allow_ragged_batch: true
}
input {
  name: "token_type_ids"
  data_type: 9  # enums may be given by number
  dims: -1
  optional: true
  reshape { shape: [ ] }
}
output [
  { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] label_filename: "labels.txt" },
  { name: "extra" data_type: TYPE_STRING dims: [ 1 ] reshape: { shape: [1, 1] } }
]
dynamic_batching {
  preferred_batch_size: 16
  preferred_batch_size: [ 32, 64 ]
  max_queue_delay_microseconds: 2000
  preserve_ordering: true
  priority_levels: 2
  default_priority_level: 1
  default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 100000 allow_timeout_override: true max_queue_size: 128 }
  priority_queue_policy { key: 2 value: { max_queue_size: 4096 } }
  priority_queue_policy [ { key: 1 value { timeout_action: REJECT } } ]
}
instance_group [ { name: "cpu" count: 2 kind: KIND_CPU }, { kind: KIND_GPU gpus: 0 } ]
parameters { key: "model_sha256" value: { string_value: "ab12" } }
parameters [ { key: "intra_op_thread_count" value { string_value: "1" } } ]
optimization {
  graph { level: -1 }
  priority: PRIORITY_MAX
  execution_accelerators { cpu_execution_accelerator [ { name: "openvino" parameters { key: "k" value: "v" } } ] }
  input_pinned_memory { enable: false }
  eager_batching: true
}
model_warmup [
  { name: "w" batch_size: 2 count: 1 inputs { key: "input_ids" value: { data_type: TYPE_INT64 dims: [ 16 ] zero_data: true } } }
]
`;

describe('parseModelConfig typed mapping', () => {
  it('maps every modelled section with camelCase names and enum names', () => {
    expect(parseModelConfig(FULL, 'config.pbtxt')).toEqual<ModelConfig>({
      name: 'intent-zh',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      maxBatchSize: 64,
      defaultModelFilename: 'model.onnx',
      versionPolicy: { specific: { versions: [1, 3] } },
      input: [
        {
          name: 'input_ids',
          dataType: 'TYPE_INT64',
          format: 'FORMAT_NONE',
          dims: [-1],
          allowRaggedBatch: true,
        },
        {
          name: 'token_type_ids',
          dataType: 'TYPE_INT64',
          dims: [-1],
          optional: true,
          reshape: { shape: [] },
        },
      ],
      output: [
        { name: 'logits', dataType: 'TYPE_FP32', dims: [3], labelFilename: 'labels.txt' },
        { name: 'extra', dataType: 'TYPE_STRING', dims: [1], reshape: { shape: [1, 1] } },
      ],
      dynamicBatching: {
        preferredBatchSize: [16, 32, 64],
        maxQueueDelayMicroseconds: 2000,
        preserveOrdering: true,
        priorityLevels: 2,
        defaultPriorityLevel: 1,
        defaultQueuePolicy: {
          timeoutAction: 'DELAY',
          defaultTimeoutMicroseconds: 100000,
          allowTimeoutOverride: true,
          maxQueueSize: 128,
        },
        priorityQueuePolicy: {
          1: {
            timeoutAction: 'REJECT',
            defaultTimeoutMicroseconds: 0,
            allowTimeoutOverride: false,
            maxQueueSize: 0,
          },
          2: {
            timeoutAction: 'REJECT',
            defaultTimeoutMicroseconds: 0,
            allowTimeoutOverride: false,
            maxQueueSize: 4096,
          },
        },
      },
      instanceGroup: [
        { name: 'cpu', count: 2, kind: 'KIND_CPU' },
        { count: 1, countUnset: true, kind: 'KIND_GPU', gpus: [0] },
      ],
      parameters: {
        model_sha256: { stringValue: 'ab12' },
        intra_op_thread_count: { stringValue: '1' },
      },
      optimization: {
        graph: { level: -1 },
        priority: 'PRIORITY_MAX',
        executionAccelerators: {
          gpuExecutionAccelerator: [],
          cpuExecutionAccelerator: [{ name: 'openvino', parameters: { k: 'v' } }],
        },
        inputPinnedMemory: { enable: false },
        eagerBatching: true,
      },
      modelWarmup: [
        {
          name: 'w',
          batchSize: 2,
          count: 1,
          inputs: { input_ids: { dataType: 'TYPE_INT64', dims: [16], zeroData: true } },
        },
      ],
    });
  });

  it.each<[string, string, ModelConfig['versionPolicy']]>([
    [
      'latest with a count',
      'version_policy { latest { num_versions: 2 } }',
      { latest: { numVersions: 2 } },
    ],
    [
      'latest without a count (Triton default 1)',
      'version_policy { latest {} }',
      { latest: { numVersions: 1 } },
    ],
    ['all', 'version_policy: { all: {} }', { all: {} }],
    [
      'specific',
      'version_policy < specific < versions: 4 versions: 2 > >',
      { specific: { versions: [4, 2] } },
    ],
    ['absent', '', undefined],
  ])('reads version_policy %s', (_name, text, expected) => {
    expect(parseModelConfig(text, 'config.pbtxt').versionPolicy).toEqual(expected);
  });

  it('accepts integer forms Triton accepts (hex, octal, +-) and boolean spellings', () => {
    const config = parseModelConfig(
      'max_batch_size: 0x10 dynamic_batching { max_queue_delay_microseconds: 010 preserve_ordering: t }',
      'config.pbtxt',
    );
    expect(config.maxBatchSize).toBe(16);
    expect(config.dynamicBatching).toMatchObject({
      maxQueueDelayMicroseconds: 8,
      preserveOrdering: true,
    });
  });

  it('tolerates fields it does not model and lists them with positions', () => {
    const text = [
      'name: "m"',
      'response_cache { enable: true }',
      'input { name: "a" data_type: TYPE_FP32 dims: [1] is_non_linear_format_io: false }',
      'sequence_batching { max_sequence_idle_microseconds: 5 }',
    ].join('\n');
    const { config, ignoredFields } = parseModelConfigDetailed(text, 'config.pbtxt');
    expect(config.input).toEqual([{ name: 'a', dataType: 'TYPE_FP32', dims: [1] }]);
    expect(ignoredFields).toEqual([
      { path: 'response_cache', line: 2, column: 1 },
      { path: 'input[0].is_non_linear_format_io', line: 3, column: 50 },
      { path: 'sequence_batching', line: 4, column: 1 },
    ]);
  });

  it('reports nothing ignored for a fully modelled config', () => {
    expect(parseModelConfigDetailed(FULL, 'config.pbtxt').ignoredFields).toEqual([]);
  });
});

describe('parseModelConfig rejects wrong value types with positions', () => {
  it.each<[string, string, number, number, string]>([
    [
      'a string for an integer',
      'max_batch_size: "32"',
      1,
      17,
      `expected an integer for 'max_batch_size' but found "32"`,
    ],
    [
      'a float for an integer',
      'max_batch_size: 1.5',
      1,
      17,
      "expected an integer for 'max_batch_size' but found '1.5'",
    ],
    ['a number for a string', 'name: 5', 1, 7, "expected a string for 'name' but found '5'"],
    [
      'an identifier for a string',
      'platform: onnx',
      1,
      11,
      "expected a string for 'platform' but found 'onnx'",
    ],
    [
      'a list for a singular field',
      'max_batch_size: [1]',
      1,
      17,
      "expected a single value (the field is not repeated) for 'max_batch_size' but found a list",
    ],
    [
      'a message for a scalar',
      'name { }',
      1,
      6,
      "expected a single value for 'name' but found a message",
    ],
    [
      'a scalar for a message',
      'dynamic_batching: 5',
      1,
      19,
      "expected a message for 'dynamic_batching' but found '5'",
    ],
    [
      'a scalar in a message list',
      'input [ 1 ]',
      1,
      7,
      "expected ':' after 'input' (a scalar value needs one)",
    ],
    [
      'a scalar for a repeated message',
      'input: 1',
      1,
      8,
      "expected a message for 'input' but found '1'",
    ],
    [
      'an int32 overflow',
      'max_batch_size: 2147483648',
      1,
      17,
      "expected an integer in the int32 range [-2147483648, 2147483647] for 'max_batch_size' but found '2147483648'",
    ],
    [
      'a negative unsigned',
      'dynamic_batching { max_queue_delay_microseconds: -1 }',
      1,
      50,
      "expected an integer in the uint64 range [0, 9007199254740991] for 'dynamic_batching.max_queue_delay_microseconds' but found '-1'",
    ],
    [
      'a 64-bit value beyond 2^53',
      'input { name: "a" data_type: TYPE_FP32 dims: [9007199254740992] }',
      1,
      47,
      "expected an integer in the int64 range [-9007199254740991, 9007199254740991] for 'input[0].dims' but found '9007199254740992'",
    ],
    [
      'a bad boolean',
      'dynamic_batching { preserve_ordering: 2 }',
      1,
      39,
      "expected true or false for 'dynamic_batching.preserve_ordering' but found '2'",
    ],
    [
      'an unknown enum name',
      'input { name: "a" data_type: TYPE_FLOAT dims: [1] }',
      1,
      30,
      "expected a DataType value (one of TYPE_INVALID, TYPE_BOOL, TYPE_UINT8, TYPE_UINT16, TYPE_UINT32, TYPE_UINT64, TYPE_INT8, TYPE_INT16, TYPE_INT32, TYPE_INT64, TYPE_FP16, TYPE_FP32, TYPE_FP64, TYPE_STRING, TYPE_BF16) for 'input[0].data_type' but found 'TYPE_FLOAT'",
    ],
    [
      'an unknown enum number',
      'instance_group { kind: 7 }',
      1,
      24,
      "expected a Kind value (one of KIND_AUTO, KIND_GPU, KIND_CPU, KIND_MODEL) for 'instance_group[0].kind' but found '7'",
    ],
    [
      'a quoted enum',
      'instance_group { kind: "KIND_CPU" }',
      1,
      24,
      `expected a Kind value (one of KIND_AUTO, KIND_GPU, KIND_CPU, KIND_MODEL) for 'instance_group[0].kind' but found "KIND_CPU"`,
    ],
    [
      'a singular field set twice',
      'name: "a"\nname: "b"',
      2,
      1,
      "field 'name' is set more than once",
    ],
    [
      'two scheduling choices',
      'dynamic_batching {}\nsequence_batching {}',
      2,
      1,
      "only one of 'dynamic_batching', 'sequence_batching', 'ensemble_scheduling' may be set (scheduling_choice), found 'dynamic_batching' and 'sequence_batching'",
    ],
    [
      'two version policies',
      'version_policy { all {} latest {} }',
      1,
      18,
      "only one of 'latest', 'all', 'specific' may be set (policy_choice), found 'latest' and 'all'",
    ],
  ])('rejects %s', (_name, text, line, column, reason) => {
    expect(parseError(text)).toMatchObject({ line, column, reason });
  });
});

const tensor = (extra: string) => `input { name: "a" data_type: TYPE_INT64 dims: [-1] ${extra} }`;

describe('parseModelConfig validation (rules Triton applies at load)', () => {
  it.each<[string, string, number, number, string]>([
    [
      'an input without a name',
      'input { data_type: TYPE_INT64 dims: [1] }',
      1,
      7,
      "'input[0].name' is required",
    ],
    [
      'an output with an empty name',
      'output { name: "" data_type: TYPE_FP32 dims: [1] }',
      1,
      10,
      "'output[0].name' is required",
    ],
    [
      'an input without data_type',
      'input { name: "a" dims: [1] }',
      1,
      7,
      "'input[0].data_type' is required and must not be TYPE_INVALID",
    ],
    [
      'a TYPE_INVALID output',
      'output { name: "a" data_type: TYPE_INVALID dims: [1] }',
      1,
      20,
      "'output[0].data_type' is required and must not be TYPE_INVALID",
    ],
    [
      'an input without dims',
      'input { name: "a" data_type: TYPE_INT64 }',
      1,
      7,
      "'input[0].dims' is required (use [ -1 ] for a variable length)",
    ],
    [
      'a zero dimension',
      'output { name: "a" data_type: TYPE_FP32 dims: [4, 0] }',
      1,
      41,
      "'output[0].dims' has dimension 0; each must be >= 1, or -1 for variable size",
    ],
    [
      'a dimension below -1',
      tensor('').replace('[-1]', '[-2]'),
      1,
      41,
      "'input[0].dims' has dimension -2; each must be >= 1, or -1 for variable size",
    ],
    ['duplicate input names', `${tensor('')}\n${tensor('')}`, 2, 7, "duplicate input name 'a'"],
    [
      'a negative max_batch_size',
      'max_batch_size: -1',
      1,
      1,
      "'max_batch_size' must be >= 0, got -1",
    ],
    [
      'a preferred size above max_batch_size',
      'max_batch_size: 8\ndynamic_batching { preferred_batch_size: [4, 16] }',
      2,
      20,
      "'dynamic_batching.preferred_batch_size' 16 must be >= 1 and <= max_batch_size (8)",
    ],
    [
      'a zero preferred size',
      'dynamic_batching { preferred_batch_size: 0 }',
      1,
      20,
      "'dynamic_batching.preferred_batch_size' 0 must be >= 1",
    ],
    [
      'a default priority out of range',
      'dynamic_batching { priority_levels: 2 default_priority_level: 3 }',
      1,
      39,
      "'dynamic_batching.default_priority_level' 3 must be in [1, 2]",
    ],
    [
      'a missing default priority',
      'dynamic_batching { priority_levels: 2 }',
      1,
      18,
      "'dynamic_batching.default_priority_level' 0 must be in [1, 2]",
    ],
    [
      'a queue policy for an unknown level',
      'dynamic_batching { priority_levels: 2 default_priority_level: 1\n  priority_queue_policy { key: 5 value {} } }',
      2,
      25,
      "'dynamic_batching.priority_queue_policy' key 5 must be in [1, 2]",
    ],
    [
      'a duplicate queue policy level',
      'dynamic_batching { priority_queue_policy { key: 1 } priority_queue_policy { key: 1 } }',
      1,
      75,
      "duplicate key 1 in 'dynamic_batching.priority_queue_policy'",
    ],
    [
      'a CPU group listing GPUs',
      'instance_group [ { kind: KIND_CPU gpus: [0] } ]',
      1,
      35,
      "an instance group of KIND_CPU cannot list 'gpus'",
    ],
    [
      'a negative instance count',
      'instance_group { count: -2 }',
      1,
      18,
      "'instance_group[0].count' must be >= 1, got -2",
    ],
    [
      'latest with zero versions',
      'version_policy { latest { num_versions: 0 } }',
      1,
      27,
      "'version_policy.latest.num_versions' must be at least 1",
    ],
    [
      'a negative specific version',
      'version_policy { specific { versions: [-1] } }',
      1,
      29,
      'version -1 is not a valid version number',
    ],
    [
      'a label file outside the model',
      'output { name: "a" data_type: TYPE_FP32 dims: [1] label_filename: "../x.txt" }',
      1,
      51,
      `'output[0].label_filename' must be a path inside the model directory, got "../x.txt"`,
    ],
    [
      'an absolute label file',
      'output { name: "a" data_type: TYPE_FP32 dims: [1] label_filename: "/etc/x" }',
      1,
      51,
      `'output[0].label_filename' must be a path inside the model directory, got "/etc/x"`,
    ],
    [
      'a duplicate parameter',
      'parameters { key: "k" value: { string_value: "1" } }\nparameters { key: "k" }',
      2,
      12,
      `duplicate key "k" in 'parameters'`,
    ],
  ])('rejects %s', (_name, text, line, column, reason) => {
    const error = parseError(text);
    expect(error).toMatchObject({ line, column, reason });
    expect(error.message).toBe(`config.pbtxt:${line}:${column}: ${reason}`);
  });

  it('defaults an instance group to one KIND_AUTO instance and keeps priorities off by default', () => {
    const config = parseModelConfig('instance_group {}\ndynamic_batching {}', 'config.pbtxt');
    // No count written: Triton reads 1; countUnset lets the embedded host choose instead.
    expect(config.instanceGroup).toEqual([{ count: 1, countUnset: true, kind: 'KIND_AUTO' }]);
    expect(config.dynamicBatching?.priorityLevels).toBe(0);
  });
});
