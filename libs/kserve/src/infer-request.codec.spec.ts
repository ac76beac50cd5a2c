import { status } from '@grpc/grpc-js';
import { buildInferRequest, decodeInferResponse } from './infer-request.codec';
import { BackendError } from './kserve.errors';
import { TensorShapeError } from './tensor.errors';

describe('buildInferRequest', () => {
  it('encodes inputs as raw contents and maps parameters and outputs', () => {
    const req = buildInferRequest({
      model: 'm',
      version: '2',
      id: 'r',
      inputs: [{ name: 'x', datatype: 'INT32', shape: [2], data: new Int32Array([1, -1]) }],
      outputs: ['logits'],
      parameters: { priority: 2, flag: true, label: 'a', ratio: 0.5 },
    });
    expect(req).toMatchObject({
      model_name: 'm',
      model_version: '2',
      id: 'r',
      inputs: [{ name: 'x', datatype: 'INT32', shape: [2] }],
      outputs: [{ name: 'logits' }],
      parameters: {
        priority: { int64_param: 2 },
        flag: { bool_param: true },
        label: { string_param: 'a' },
        ratio: { double_param: 0.5 },
      },
    });
    expect([...req.raw_input_contents![0]!]).toEqual([1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  });

  it('refuses bad shapes before building anything', () => {
    expect(() =>
      buildInferRequest({
        model: 'm',
        inputs: [{ name: 'x', datatype: 'FP32', shape: [-1], data: new Float32Array(1) }],
      }),
    ).toThrow(TensorShapeError);
  });
});

describe('decodeInferResponse', () => {
  const base = { model_name: 'm', model_version: '1', id: '' };

  it('decodes raw outputs and typed contents', () => {
    const raw = decodeInferResponse(
      {
        ...base,
        outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2] }],
        raw_output_contents: [Buffer.from(new Float32Array([0.25, -1]).buffer)],
      },
      'h:1',
    );
    expect([...(raw[0]!.data as Float32Array)]).toEqual([0.25, -1]);
    const typed = decodeInferResponse(
      {
        ...base,
        outputs: [
          { name: 'n', datatype: 'INT64', shape: [2], contents: { int64_contents: [3, 4] } },
        ],
        raw_output_contents: [],
      },
      'h:1',
    );
    expect([...(typed[0]!.data as BigInt64Array)]).toEqual([3n, 4n]);
  });

  it('turns a malformed response into BackendError INTERNAL naming the output', () => {
    const err = (() => {
      try {
        decodeInferResponse(
          {
            ...base,
            outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2] }],
            raw_output_contents: [Buffer.alloc(4)],
          },
          'h:1',
        );
      } catch (e: unknown) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(status.INTERNAL);
    expect((err as BackendError).message).toMatch(
      /output 'logits': raw_output_contents has 4 bytes, expected 8/,
    );
  });
});
