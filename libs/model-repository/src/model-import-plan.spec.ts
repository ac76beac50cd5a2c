import { parseModelConfig } from './model-config.parser';
import { writeModelConfig } from './model-config-writer';
import { ModelImportError } from './model-import.errors';
import {
  checkAgainstExisting,
  planModelImport,
  type ImportOptions,
  type OnnxSignature,
  type TensorSignature,
} from './model-import-plan';

const ids = (shape: (number | string)[] = ['batch', 'sequence']): TensorSignature => ({
  name: 'input_ids',
  type: 'int64',
  shape,
});
const input = (
  name: string,
  shape: (number | string)[] = ['batch', 'sequence'],
  type = 'int64',
) => ({
  name,
  type,
  shape,
});
const logits = (shape: (number | string)[] = ['batch', 3]): TensorSignature => ({
  name: 'logits',
  type: 'float32',
  shape,
});

/** What onnxruntime reports for a generator-written (or torch.onnx.export'ed) classifier. */
const GENERATED: OnnxSignature = {
  inputs: [ids(), input('attention_mask'), input('token_type_ids')],
  outputs: [logits()],
};

const OPTS: ImportOptions = {
  name: 'byo',
  kind: 'classification',
  labelCount: 3,
  maxBatchSize: 32,
  labelsFile: 'labels.txt',
};

function importError(sig: OnnxSignature, opts: Partial<ImportOptions> = {}): ModelImportError {
  try {
    planModelImport(sig, { ...OPTS, ...opts });
  } catch (err: unknown) {
    if (err instanceof ModelImportError) return err;
    throw err;
  }
  throw new Error('expected a ModelImportError');
}

describe('planModelImport', () => {
  it('plans the pinned Triton form for a dynamic-axes classifier', () => {
    const plan = planModelImport(GENERATED, OPTS);
    expect(plan.inputs).toEqual({
      ids: 'input_ids',
      mask: 'attention_mask',
      typeIds: 'token_type_ids',
    });
    expect(plan.output).toBe('logits');
    const text = writeModelConfig(plan.config);
    expect(text).toContain('max_batch_size: 32\n');
    expect(text).toContain('dims: [ -1 ]');
    expect(text).toContain('dims: [ 3 ]\n    label_filename: "labels.txt"');
    expect(text).toContain(
      'dynamic_batching {\n  preferred_batch_size: [ 8, 16, 32 ]\n  max_queue_delay_microseconds: 2000\n  priority_levels: 2\n  default_priority_level: 1\n}',
    );
    expect(parseModelConfig(text, 'byo/config.pbtxt')).toEqual(plan.config);
  });

  it('treats token_type_ids as optional and keeps preferred sizes within max_batch_size', () => {
    const plan = planModelImport(
      { inputs: [input('attention_mask', [-1, -1]), ids()], outputs: [logits()] },
      { ...OPTS, maxBatchSize: 4 },
    );
    expect(plan.inputs).toEqual({ ids: 'input_ids', mask: 'attention_mask' });
    expect(plan.config.input.map((i) => i.name)).toEqual(['input_ids', 'attention_mask']);
    expect(plan.config.dynamicBatching?.preferredBatchSize).toEqual([4]);
  });

  it('refuses fixed [1, 512] inputs (field report A) with both reasons and how to re-export', () => {
    const err = importError({
      inputs: [ids([1, 512]), input('attention_mask', [1, 512])],
      outputs: [logits([1, 3])],
    });
    expect(err.code).toBe('SIGNATURE_UNSUPPORTED');
    expect(err.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          "input 'input_ids' has a fixed sequence length 512 (shape [1, 512])",
        ),
        expect.stringContaining("input 'input_ids' has a static batch axis 1 (shape [1, 512])"),
        expect.stringContaining("output 'logits' has a static batch axis 1"),
      ]),
    );
    expect(err.message).toContain("dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}");
  });

  it('refuses a static batch axis alone', () => {
    const err = importError({
      inputs: [ids([1, 'sequence']), input('attention_mask', [1, 'sequence'])],
      outputs: [logits(['batch', 3])],
    });
    expect(err.problems).toHaveLength(2);
    expect(err.message).toContain(
      "input 'input_ids' has a static batch axis 1 (shape [1, sequence])",
    );
    expect(err.message).not.toContain('fixed sequence');
  });

  it('refuses a label count that differs from the output width', () => {
    const err = importError(GENERATED, { labelCount: 4 });
    expect(err.code).toBe('LABEL_COUNT_MISMATCH');
    expect(err.message).toBe(
      "output 'logits' has 3 classes (shape [batch, 3]) but labels.txt has 4 labels; give one label per class, in logit order",
    );
  });

  it('lists every other unsupported signature at once', () => {
    const err = importError(
      {
        inputs: [input('input_ids', ['b', 's'], 'int32'), input('pixel_values', ['b', 3])],
        outputs: [logits(), { name: 'probs', type: 'float32', shape: ['b', 3] }],
      },
      { output: 'missing' },
    );
    expect(err.problems).toEqual([
      "the model has no input 'attention_mask' (its inputs are 'input_ids', 'pixel_values'); export with input_names=['input_ids', 'attention_mask', 'token_type_ids']",
      "the model's input 'pixel_values' is not one the pipeline fills (input_ids, attention_mask, token_type_ids)",
      "input 'input_ids' is int32; the preprocessing pipelines feed int64 (export with torch.long inputs)",
      expect.stringContaining("input 'pixel_values' has a fixed sequence length 3 (shape [b, 3])"),
      "the model has no output 'missing' (its outputs are 'logits', 'probs')",
    ]);
  });

  it('asks which output to serve when several fit', () => {
    const err = importError({
      inputs: GENERATED.inputs,
      outputs: [
        { ...logits(), name: 'a' },
        { ...logits(), name: 'b' },
      ],
    });
    expect(err.message).toBe(
      "cannot tell which output to serve among 'a', 'b'; pass --output <name>",
    );
  });

  it('plans encoder outputs with the sequence axis variable and the hidden size fixed', () => {
    const plan = planModelImport(
      {
        inputs: GENERATED.inputs,
        outputs: [
          { name: 'last_hidden_state', type: 'float32', shape: ['batch', 'sequence', 128] },
        ],
      },
      { ...OPTS, kind: 'embedding', labelCount: 0 },
    );
    expect(plan.config.output).toEqual([
      { name: 'last_hidden_state', dataType: 'TYPE_FP32', dims: [-1, 128] },
    ]);
  });
});

describe('checkAgainstExisting', () => {
  const plan = planModelImport(GENERATED, OPTS);

  it('accepts a version whose signature is the model config', () => {
    expect(() => checkAgainstExisting(plan.config, plan)).not.toThrow();
  });

  it('refuses a version whose inputs or output differ from the model config', () => {
    const existing = {
      ...plan.config,
      input: plan.config.input.slice(0, 2),
      output: [{ ...plan.config.output[0]!, dims: [6] }],
    };
    const err = (() => {
      try {
        checkAgainstExisting(existing, plan);
      } catch (e: unknown) {
        return e as ModelImportError;
      }
      throw new Error('expected a refusal');
    })();
    expect(err.code).toBe('EXISTING_MODEL_MISMATCH');
    expect(err.problems).toEqual([
      "the model's inputs are {attention_mask TYPE_INT64 [-1]; input_ids TYPE_INT64 [-1]} in config.pbtxt but the new version's are {attention_mask TYPE_INT64 [-1]; input_ids TYPE_INT64 [-1]; token_type_ids TYPE_INT64 [-1]}",
      "output 'logits' is logits TYPE_FP32 [6] in config.pbtxt but logits TYPE_FP32 [3] in the new version",
    ]);
  });
});
