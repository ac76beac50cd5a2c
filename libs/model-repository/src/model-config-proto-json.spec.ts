import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { parseModelConfig } from './model-config.parser';
import { modelConfigToProtoJson, type ProtoJson } from './model-config-proto-json';

const fixture = (name: string) => readFileSync(join(__dirname, 'testing', name), 'utf8');
const PROTO = join(__dirname, '../../../proto/inference/model_config.proto');

const FULL = `
name: "m" platform: "onnxruntime_onnx" max_batch_size: 8 default_model_filename: "model.onnx"
version_policy { latest { num_versions: 2 } }
input { name: "ids" data_type: TYPE_INT64 format: FORMAT_NONE dims: [-1] reshape { shape: [-1] }
        allow_ragged_batch: true optional: false is_shape_tensor: false }
output { name: "logits" data_type: TYPE_FP32 dims: [3] label_filename: "labels.txt" }
dynamic_batching {
  preferred_batch_size: [4, 8] max_queue_delay_microseconds: 100 preserve_ordering: true
  priority_levels: 2 default_priority_level: 1
  default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 5 max_queue_size: 9 }
  priority_queue_policy { key: 2 value { allow_timeout_override: true } }
}
instance_group { name: "g" count: 2 kind: KIND_GPU gpus: [0, 1] }
parameters { key: "model_sha256" value { string_value: "abc" } }
optimization { graph { level: 1 } priority: PRIORITY_MIN
  execution_accelerators { gpu_execution_accelerator { name: "tensorrt" parameters { key: "precision_mode" value: "FP16" } } }
  output_pinned_memory { enable: true } gather_kernel_buffer_threshold: 3 eager_batching: false }
model_warmup { name: "w" batch_size: 1 count: 2
  inputs { key: "ids" value { data_type: TYPE_INT64 dims: [4] input_data_file: "ids.bin" } } }
`;

/** Keeps only the keys `shape` has, recursively, so a dropped or renamed key shows as a diff. */
function project(actual: unknown, shape: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(actual)) {
    return shape.map((s, i): unknown => project(actual[i], s));
  }
  if (shape && typeof shape === 'object' && actual && typeof actual === 'object') {
    const a = actual as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(shape).map((k) => [k, project(a[k], (shape as Record<string, unknown>)[k])]),
    );
  }
  return actual;
}

describe('modelConfigToProtoJson', () => {
  it('maps Report C to snake_case keys, enum names and plain numbers', () => {
    const config = parseModelConfig(fixture('report-c.config.pbtxt'), 'config.pbtxt');
    expect(modelConfigToProtoJson(config)).toEqual<ProtoJson>({
      name: 'bert_onnx',
      platform: 'onnxruntime_onnx',
      backend: '',
      max_batch_size: 32,
      input: [
        { name: 'input_ids', data_type: 'TYPE_INT64', dims: [-1, -1] },
        { name: 'attention_mask', data_type: 'TYPE_INT64', dims: [-1, -1] },
        { name: 'token_type_ids', data_type: 'TYPE_INT64', dims: [-1, -1] },
      ],
      output: [
        { name: 'last_hidden_state', data_type: 'TYPE_FP32', dims: [-1, -1, 768] },
        { name: 'pooler_output', data_type: 'TYPE_FP32', dims: [-1, 768] },
      ],
      dynamic_batching: {
        preferred_batch_size: [8, 16, 32],
        max_queue_delay_microseconds: 5000,
        preserve_ordering: false,
        priority_levels: 0,
        default_priority_level: 0,
      },
      instance_group: [{ count: 2, kind: 'KIND_GPU', gpus: [0, 1] }],
      parameters: {},
    });
  });

  it('maps labels, version policy, queue policies and parameters', () => {
    const json = modelConfigToProtoJson(parseModelConfig(FULL, 'config.pbtxt'));
    expect(json).toMatchObject({
      version_policy: { latest: { num_versions: 2 } },
      output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [3], label_filename: 'labels.txt' }],
      dynamic_batching: {
        default_queue_policy: {
          timeout_action: 'DELAY',
          default_timeout_microseconds: 5,
          allow_timeout_override: false,
          max_queue_size: 9,
        },
        priority_queue_policy: { 2: { timeout_action: 'REJECT', allow_timeout_override: true } },
      },
      instance_group: [{ name: 'g', count: 2, kind: 'KIND_GPU', gpus: [0, 1] }],
      parameters: { model_sha256: { string_value: 'abc' } },
    });
  });

  it.each([
    ['all', 'version_policy { all {} }', { all: {} }],
    [
      'specific',
      'version_policy { specific { versions: [2, 5] } }',
      { specific: { versions: [2, 5] } },
    ],
  ])('maps version_policy %s', (_name, text, expected) => {
    expect(modelConfigToProtoJson(parseModelConfig(text, 'config.pbtxt')).version_policy).toEqual(
      expected,
    );
  });

  it('leaves absent optional sections out', () => {
    const json = modelConfigToProtoJson(parseModelConfig('name: "m"', 'config.pbtxt'));
    expect(Object.keys(json).sort()).toEqual([
      'backend',
      'input',
      'instance_group',
      'max_batch_size',
      'name',
      'output',
      'parameters',
      'platform',
    ]);
  });

  it('survives a protobuf round trip through inference.ModelConfig (keepCase, enums String, longs Number)', () => {
    const root = new protobuf.Root().loadSync(PROTO, { keepCase: true });
    const type = root.lookupType('inference.ModelConfig');
    const json = modelConfigToProtoJson(parseModelConfig(FULL, 'config.pbtxt'));
    const decoded = type.decode(type.encode(type.fromObject(json)).finish());
    const back = type.toObject(decoded, { enums: String, longs: Number, defaults: true });
    // Every key we emit must exist in the proto with a compatible type, or it would be lost here.
    expect(project(back, json)).toEqual(json);
  });
});
