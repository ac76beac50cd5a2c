import { versionSpec } from '../testing/batching-fixture';
import type { HostTensor, InferRequest } from './inference.types';
import { validateInferRequest } from './infer-request.check';
import { InvalidInferenceError } from './model-host.errors';

const spec = versionSpec(
  4,
  { priorityLevels: 2, defaultPriorityLevel: 1, maxPaddingRatio: 1.5 },
  {
    inputs: [
      { name: 'input_ids', datatype: 'INT64', dims: [-1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1] },
    ],
    outputs: [{ name: 'logits', datatype: 'FP32', dims: [3] }],
  },
);
const t = (
  name: string,
  shape: number[],
  bytes?: number,
  datatype: HostTensor['datatype'] = 'INT64',
): HostTensor => ({
  name,
  datatype,
  shape,
  data: new Uint8Array(bytes ?? shape.reduce((a, b) => a * b, 1) * 8),
});
const req = (inputs: HostTensor[], over: Partial<InferRequest> = {}): InferRequest => ({
  id: '',
  model: 'm',
  version: '',
  inputs,
  outputs: [],
  priority: 0,
  timeoutUs: 0,
  ...over,
});
const ok = [t('input_ids', [2, 5]), t('attention_mask', [2, 5])];

describe('validateInferRequest', () => {
  it('accepts a well-formed request and returns inputs in model order', () => {
    const out = validateInferRequest(spec, req([...ok].reverse()));
    expect(out.map((x) => x.name)).toEqual(['input_ids', 'attention_mask']);
  });

  it.each([
    ['a missing input', req([ok[0]!]), "missing input 'attention_mask' (INT64 [-1,-1])"],
    [
      'an extra input',
      req([...ok, t('token_type_ids', [2, 5])]),
      "unexpected input 'token_type_ids': model 'm' expects inputs 'input_ids', 'attention_mask'",
    ],
    [
      'a wrong datatype',
      req([t('input_ids', [2, 5], 40, 'INT32'), ok[1]!]),
      "input 'input_ids': datatype INT32 does not match the model's INT64",
    ],
    [
      'a wrong rank',
      req([t('input_ids', [2, 5, 1]), ok[1]!]),
      "input 'input_ids': shape [2,5,1] does not match the model's [-1,-1]",
    ],
    [
      'a batch over max_batch_size',
      req([t('input_ids', [5, 5]), t('attention_mask', [5, 5])]),
      "input 'input_ids': batch size 5 is outside 1..4 (max_batch_size)",
    ],
    [
      'differing batch sizes',
      req([t('input_ids', [2, 5]), t('attention_mask', [1, 5])]),
      "input 'attention_mask': batch size 1 differs",
    ],
    [
      'a byte size not matching shape × dtype',
      req([t('input_ids', [2, 5], 79), ok[1]!]),
      "input 'input_ids': data holds 79 bytes but shape [2,5] of INT64 needs 80",
    ],
    [
      'a huge declared shape',
      req([t('input_ids', [1, 2 ** 40], 8), t('attention_mask', [1, 2 ** 40], 8)]),
      "input 'input_ids': shape [1,1099511627776] declares more than",
    ],
    [
      'an unknown requested output',
      req(ok, { outputs: ['probs'] }),
      "unknown output 'probs': model 'm' has outputs 'logits'",
    ],
    [
      'a priority above priority_levels',
      req(ok, { priority: 3 }),
      "priority 3 is out of range: model 'm' has priority levels 1..2",
    ],
    ['an input given twice', req([...ok, ok[0]!]), "input 'input_ids' is given twice"],
    [
      'an empty sequence',
      req([t('input_ids', [1, 0]), t('attention_mask', [1, 0])]),
      "input 'input_ids': shape [1,0] is empty along dimension 1; every dimension must be at least 1",
    ],
    [
      'an empty batch',
      req([t('input_ids', [0, 5]), t('attention_mask', [0, 5])]),
      "input 'input_ids': batch size 0 is outside 1..4 (max_batch_size)",
    ],
  ])('rejects %s with INVALID_ARGUMENT naming the tensor', (_what, request, message) => {
    let caught: unknown;
    try {
      validateInferRequest(spec, request);
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidInferenceError);
    expect((caught as InvalidInferenceError).code).toBe('INVALID_ARGUMENT');
    expect((caught as Error).message).toContain(message);
  });
});
