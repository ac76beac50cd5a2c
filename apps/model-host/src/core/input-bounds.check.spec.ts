import type { HostTensor } from './inference.types';
import { checkInputBounds } from './input-bounds.check';
import { InvalidInferenceError } from './model-host.errors';
import type { InputBounds } from './model-spec';

const bounds: InputBounds = {
  ids: {
    input_ids: { rows: 100, table: 'embedding table' },
    token_type_ids: { rows: 2, table: 'token-type embedding table' },
  },
  sequence: { input: 'input_ids', rows: 8, table: 'position embedding table' },
  sameSize: [
    {
      dim: 'sequence',
      members: [
        { input: 'input_ids', axis: 1 },
        { input: 'attention_mask', axis: 1 },
      ],
    },
  ],
};

function int64(name: string, shape: number[], values: (number | bigint)[]): HostTensor {
  // Offset by one byte inside a larger buffer: request tensors are views at any alignment.
  const backing = new Uint8Array(values.length * 8 + 1);
  const data = backing.subarray(1);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return { name, datatype: 'INT64', shape, data };
}

function int32(name: string, shape: number[], values: number[]): HostTensor {
  const data = new Uint8Array(values.length * 4);
  const view = new DataView(data.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return { name, datatype: 'INT32', shape, data };
}

function messageOf(inputs: HostTensor[]): string {
  try {
    checkInputBounds(bounds, inputs);
  } catch (err: unknown) {
    expect(err).toBeInstanceOf(InvalidInferenceError);
    return (err as Error).message;
  }
  throw new Error('expected checkInputBounds to throw');
}

const types = (shape: number[]) =>
  int64('token_type_ids', shape, new Array<number>(shape[0]! * shape[1]!).fill(0));

describe('checkInputBounds', () => {
  it('accepts ids inside every table and a sequence as long as the position table', () => {
    expect(() =>
      checkInputBounds(bounds, [
        int64('input_ids', [2, 8], [0, 1, 2, 3, 4, 5, 6, 99, 9, 8, 7, 6, 5, 4, 3, 2]),
        types([2, 8]),
        int64('attention_mask', [2, 8], new Array<number>(16).fill(5000)),
      ]),
    ).not.toThrow();
  });

  it('passes everything when the model has no recognised bounds', () => {
    expect(() => checkInputBounds(undefined, [int64('input_ids', [1, 1], [1e9])])).not.toThrow();
  });

  it.each<[string, HostTensor[], string]>([
    [
      'an id past the embedding table, with its position',
      [int64('input_ids', [2, 3], [1, 2, 3, 4, 5, 999999]), types([2, 3])],
      "input 'input_ids' holds 999999 at [1,2]; the model's embedding table has 100 rows (valid ids 0..99)",
    ],
    [
      'the first id equal to the row count',
      [int64('input_ids', [1, 2], [100, 5])],
      "input 'input_ids' holds 100 at [0,0]; the model's embedding table has 100 rows",
    ],
    [
      'a negative id',
      [int64('input_ids', [1, 3], [1, -1, 2])],
      "input 'input_ids' holds -1 at [0,1]",
    ],
    [
      'an id only the high word makes too large',
      [int64('input_ids', [1, 1], [2n ** 32n + 5n])],
      "input 'input_ids' holds 4294967301 at [0,0]",
    ],
    [
      'a token type past its table',
      [int64('input_ids', [1, 2], [1, 2]), int64('token_type_ids', [1, 2], [0, 7])],
      "input 'token_type_ids' holds 7 at [0,1]; the model's token-type embedding table has 2 rows (valid ids 0..1)",
    ],
    [
      'an INT32 id past the table',
      [int32('input_ids', [1, 2], [3, 100])],
      "input 'input_ids' holds 100 at [0,1]",
    ],
    [
      'a sequence longer than the position table',
      [int64('input_ids', [1, 9], new Array<number>(9).fill(1))],
      "input 'input_ids' has 9 positions along its last dimension (shape [1,9]); the model's position embedding table has 8 rows (at most 8 positions)",
    ],
    [
      'an attention mask of another length than the ids (one symbolic dimension)',
      [int64('input_ids', [1, 3], [1, 2, 3]), int64('attention_mask', [1, 4], [1, 1, 1, 1])],
      "input 'attention_mask' has 4 along dimension 1 (shape [1,4]) but input 'input_ids' has 3 along dimension 1; the model names both 'sequence', so they must be equal",
    ],
  ])('refuses %s, naming the tensor and the bound', (_what, inputs, message) => {
    expect(messageOf(inputs)).toContain(message);
  });
});
