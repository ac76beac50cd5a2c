import { existsSync, readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { join } from 'node:path';
import { parseModelConfig } from '@mesh/model-repository';
import type { ModelVersionSpec } from '../core/model-spec';
import { batchingPolicyOf } from './batching-policy';
import { decideSplit } from './model-version-loader';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DIR = join(ROOT, 'model_repository', 'sentiment-en');
const MODEL = join(DIR, '1', 'model.onnx');

describe('decideSplit without an instance_group (real ORT probe)', () => {
  jest.setTimeout(60_000);

  beforeAll(() => {
    if (!existsSync(MODEL)) execSync('npm run -s models', { cwd: ROOT, stdio: 'inherit' });
  });

  it('times a batch-1 run of the model and names why it split the cores as it did', async () => {
    const text = readFileSync(join(DIR, 'config.pbtxt'), 'utf8').replace(
      /instance_group\s*\[[^\]]*\]/,
      '',
    );
    const config = parseModelConfig(text, 'sentiment-en/config.pbtxt');
    expect(config.instanceGroup).toEqual([]);
    const spec: ModelVersionSpec = {
      model: 'sentiment-en',
      version: '1',
      maxBatchSize: config.maxBatchSize,
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
        name,
        datatype: 'INT64' as const,
        dims: [-1],
      })),
      outputs: [{ name: 'logits', datatype: 'FP32', dims: [3] }],
      batching: batchingPolicyOf(config),
    };
    const split = await decideSplit(config, spec, MODEL, {
      intraOpThreads: undefined,
      interOpThreads: 1,
      graphOptimizationLevel: 'all',
      allowSpinning: true,
      cores: 2,
    });
    // The tiny demo model is far below the fast threshold even on a busy machine.
    expect(split).toMatchObject({ instances: 2, intraOpThreads: 1 });
    expect(split.reason).toMatch(/^batch-1 run [\d.]+ ms on one thread \(fast/);
  });
});
