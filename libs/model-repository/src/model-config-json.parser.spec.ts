import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelConfigJsonError } from './model-config.errors';
import { parseModelConfigJson } from './model-config-json.parser';
import { parseModelConfig } from './model-config.parser';
import { modelConfigToProtoJson } from './model-config-proto-json';

const fixture = (name: string) => readFileSync(join(__dirname, 'testing', name), 'utf8');

function jsonError(text: string): string {
  try {
    parseModelConfigJson(text, "parameter 'config'");
  } catch (err: unknown) {
    if (err instanceof ModelConfigJsonError) return err.message;
    throw err;
  }
  throw new Error(`expected an error for ${text}`);
}

describe('parseModelConfigJson', () => {
  it('reads back what the ModelConfig endpoint answers (proto JSON) as the same config', () => {
    const config = parseModelConfig(fixture('report-c.config.pbtxt'), 'c/config.pbtxt');
    const text = JSON.stringify(modelConfigToProtoJson(config));
    expect(parseModelConfigJson(text, 'config').config).toEqual(config);
  });

  it('takes lowerCamelCase names, 64-bit integers and enums as strings, and lists the fields set', () => {
    const parsed = parseModelConfigJson(
      JSON.stringify({
        maxBatchSize: 8,
        versionPolicy: { specific: { versions: ['2'] } },
        input: [{ name: 'input_ids', dataType: 'TYPE_INT64', dims: ['-1'] }],
        parameters: { model_sha256_v2: { stringValue: 'ab' } },
      }),
      'config',
    );
    expect(parsed.config).toMatchObject({
      maxBatchSize: 8,
      versionPolicy: { specific: { versions: [2] } },
      input: [{ name: 'input_ids', dataType: 'TYPE_INT64', dims: [-1] }],
      parameters: { model_sha256_v2: { stringValue: 'ab' } },
    });
    expect(parsed.fieldsSet).toEqual(['max_batch_size', 'version_policy', 'input', 'parameters']);
  });

  it.each([
    ['not JSON', '{', "parameter 'config' is not valid JSON"],
    ['not an object', '[1]', "parameter 'config' must be a JSON object"],
    [
      'a wrong type',
      '{"max_batch_size":"many"}',
      "parameter 'config': expected an integer for 'max_batch_size' but found \"many\"",
    ],
    [
      'two version policies',
      '{"version_policy":{"all":{},"latest":{"num_versions":1}}}',
      "parameter 'config': only one of",
    ],
    [
      'an unknown data type',
      '{"input":[{"name":"x","data_type":"TYPE_FOO","dims":[1]}]}',
      "parameter 'config': expected a DataType value",
    ],
  ])('rejects %s naming the field', (_what, text, message) => {
    expect(jsonError(text)).toContain(message);
  });
});
