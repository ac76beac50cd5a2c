import {
  InferRequestError,
  TensorDatatypeError,
  TensorShapeError,
  TensorSizeError,
  TensorValueError,
} from './tensor.errors';
import {
  jsonToTensor,
  parseJsonInferRequest,
  tensorToJson,
  toJsonInferResponse,
} from './tensor-json.codec';

describe('KServe v2 JSON mapping', () => {
  it('parses a request with nested and flat data', () => {
    const req = parseJsonInferRequest({
      id: 'r1',
      parameters: { priority: 1 },
      inputs: [
        {
          name: 'input_ids',
          shape: [2, 2],
          datatype: 'INT64',
          data: [
            [101, 7],
            [8, 102],
          ],
        },
        { name: 'mask', shape: [4], datatype: 'BOOL', data: [true, true, false, true] },
        { name: 'text', shape: [1], datatype: 'BYTES', data: ['你好'] },
      ],
      outputs: [{ name: 'logits' }],
    });
    expect(req.id).toBe('r1');
    expect(req.parameters).toEqual({ priority: 1 });
    expect(req.outputs).toEqual([{ name: 'logits' }]);
    expect([...(req.inputs[0]!.data as BigInt64Array)]).toEqual([101n, 7n, 8n, 102n]);
    expect([...(req.inputs[1]!.data as Uint8Array)]).toEqual([1, 1, 0, 1]);
    expect((req.inputs[2]!.data as Buffer[])[0]!.toString('utf8')).toBe('你好');
  });

  it('rejects data whose element count differs from the shape', () => {
    const bad = { name: 'input_ids', shape: [1, 4], datatype: 'INT64', data: [1, 2, 3] };
    expect(() => jsonToTensor(bad)).toThrow(TensorSizeError);
    expect(() => jsonToTensor(bad)).toThrow(
      "input 'input_ids': data has 3 elements, expected 4 (shape [1,4])",
    );
  });

  it('rejects unknown datatypes, bad shapes, wrong value types and malformed bodies', () => {
    expect(() => jsonToTensor({ name: 'a', shape: [1], datatype: 'FLOAT', data: [1] })).toThrow(
      TensorDatatypeError,
    );
    expect(() => jsonToTensor({ name: 'a', shape: [-1], datatype: 'FP32', data: [1] })).toThrow(
      TensorShapeError,
    );
    expect(() =>
      jsonToTensor({ name: 'a', shape: [1e10, 1e10], datatype: 'FP32', data: [] }),
    ).toThrow(TensorShapeError);
    expect(() => jsonToTensor({ name: 'a', shape: [1], datatype: 'FP32', data: ['x'] })).toThrow(
      TensorValueError,
    );
    expect(() => jsonToTensor({ name: 'a', shape: [1], datatype: 'BYTES', data: [1] })).toThrow(
      TensorValueError,
    );
    expect(() => parseJsonInferRequest({ inputs: [] })).toThrow(InferRequestError);
    expect(() => parseJsonInferRequest([])).toThrow(InferRequestError);
    const dup = { name: 'a', shape: [1], datatype: 'FP32', data: [1] };
    expect(() => parseJsonInferRequest({ inputs: [dup, dup] })).toThrow(/appears more than once/);
  });

  it('renders tensors and responses with flat data', () => {
    const logits = {
      name: 'logits',
      datatype: 'FP32' as const,
      shape: [1, 2],
      data: new Float32Array([0.5, -1]),
    };
    expect(tensorToJson(logits)).toEqual({
      name: 'logits',
      datatype: 'FP32',
      shape: [1, 2],
      data: [0.5, -1],
    });
    expect(
      toJsonInferResponse({ modelName: 'm', modelVersion: '2', id: 'r1', outputs: [logits] }),
    ).toEqual({
      model_name: 'm',
      model_version: '2',
      id: 'r1',
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2], data: [0.5, -1] }],
    });
  });

  it('round-trips every datatype through JSON', () => {
    const cases: [string, unknown[]][] = [
      ['BOOL', [true, false]],
      ['UINT8', [0, 255]],
      ['UINT16', [1, 65535]],
      ['UINT32', [1, 4294967295]],
      ['UINT64', [1, '18446744073709551615']],
      ['INT8', [-128, 127]],
      ['INT16', [-32768, 1]],
      ['INT32', [-5, 5]],
      ['INT64', [-5, '9223372036854775807']],
      ['FP16', [1.5, -2]],
      ['BF16', [1.5, -2]],
      ['FP32', [0.25, -8]],
      ['FP64', [Math.E, -1]],
      ['BYTES', ['a', 'bc']],
    ];
    for (const [datatype, data] of cases) {
      const t = jsonToTensor({ name: 'x', shape: [2], datatype, data });
      expect(tensorToJson(t).data).toEqual(data);
    }
  });
});
