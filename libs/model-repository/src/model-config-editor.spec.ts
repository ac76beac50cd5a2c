import { setModelConfigParameter } from './model-config-editor';
import { ModelConfigParseError } from './model-config.errors';
import { parseModelConfig } from './model-config.parser';

const SHA1 = '1'.repeat(64);
const SHA2 = '2'.repeat(64);

const BASE = [
  '# hand-written, keep this comment',
  'name: "m"',
  'platform: "onnxruntime_onnx"',
  'max_batch_size: 8',
  'input [ { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] } ]',
  'output [ { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] } ]',
  'response_cache { enable: true }',
  `parameters { key: "model_sha256_v1" value: { string_value: "${SHA1}" } }`,
  '',
].join('\n');

describe('setModelConfigParameter', () => {
  it('appends a new parameter entry and leaves every other byte alone', () => {
    const edited = setModelConfigParameter(BASE, 'm/config.pbtxt', 'model_sha256_v2', SHA2);
    expect(edited.startsWith(BASE)).toBe(true);
    expect(edited.slice(BASE.length)).toBe(
      `parameters {\n  key: "model_sha256_v2"\n  value: { string_value: "${SHA2}" }\n}\n`,
    );
    const config = parseModelConfig(edited, 'm/config.pbtxt');
    expect(config.parameters.model_sha256_v1?.stringValue).toBe(SHA1);
    expect(config.parameters.model_sha256_v2?.stringValue).toBe(SHA2);
  });

  it('replaces an existing value in place, keeping comments and unmodelled fields', () => {
    const edited = setModelConfigParameter(BASE, 'm/config.pbtxt', 'model_sha256_v1', SHA2);
    expect(edited).toBe(BASE.replace(SHA1, SHA2));
  });

  it('finds entries written as a list, with single quotes', () => {
    const text = `name: "m"\nparameters [ { key: 'k' value { string_value: 'old' } }, { key: "j" value: { string_value: "x" } } ]\n`;
    const edited = setModelConfigParameter(text, 'c', 'k', 'new "v"');
    expect(edited).toBe(
      `name: "m"\nparameters [ { key: 'k' value { string_value: "new \\"v\\"" } }, { key: "j" value: { string_value: "x" } } ]\n`,
    );
  });

  it('adds the missing final newline before appending', () => {
    const edited = setModelConfigParameter('name: "m"', 'c', 'k', 'v');
    expect(edited).toBe('name: "m"\nparameters {\n  key: "k"\n  value: { string_value: "v" }\n}\n');
  });

  it('refuses a config that does not parse', () => {
    expect(() => setModelConfigParameter('name: "m" {', 'm/config.pbtxt', 'k', 'v')).toThrow(
      ModelConfigParseError,
    );
  });

  it('refuses a value split over adjacent strings instead of corrupting it', () => {
    const text = 'name: "m"\nparameters { key: "k" value: { string_value: "ab" "cd" } }\n';
    expect(() => setModelConfigParameter(text, 'c', 'k', 'v')).toThrow(/cannot set parameter 'k'/);
  });
});
