import { attr, OnnxGraphBuilder } from './onnx-graph.builder';
import { OnnxDataType } from './onnx-proto';

describe('OnnxGraphBuilder', () => {
  it('stores initializers as little-endian raw data', () => {
    const g = new OnnxGraphBuilder();
    g.floatInitializer('f', [2], Float32Array.of(1, -2));
    g.int64Initializer('i', [2], [1, -1]);
    const [f, i] = g.build('t').initializer;
    expect(Buffer.from(f!.rawData).toString('hex')).toBe('0000803f000000c0');
    expect(Buffer.from(i!.rawData).toString('hex')).toBe('0100000000000000ffffffffffffffff');
    expect(f!.dataType).toBe(OnnxDataType.FLOAT);
    expect(i!.dataType).toBe(OnnxDataType.INT64);
  });

  it('rejects values that do not fill the dims', () => {
    const g = new OnnxGraphBuilder();
    expect(() => g.floatInitializer('w', [2, 3], new Float32Array(5))).toThrow(
      /5 values for dims \[2, 3\]/,
    );
  });

  it('rejects duplicate value names', () => {
    const g = new OnnxGraphBuilder();
    g.input('x', OnnxDataType.FLOAT, ['batch']);
    expect(() => g.floatInitializer('x', [], Float32Array.of(0))).toThrow(/duplicate/);
  });

  it('makes node output names unique and keeps call order', () => {
    const g = new OnnxGraphBuilder();
    const x = g.input('x', OnnxDataType.FLOAT, ['batch', 4]);
    const a = g.op('Relu', [x], 'act');
    const b = g.op('Softmax', [a], 'act', [attr.int('axis', -1)]);
    g.exposeAs(b, 'y', OnnxDataType.FLOAT, ['batch', 4]);
    const graph = g.build('t');
    expect([a, b]).toEqual(['act', 'act_1']);
    expect(graph.node.map((n) => n.opType)).toEqual(['Relu', 'Softmax', 'Identity']);
    expect(graph.node[1]!.attribute).toEqual([{ name: 'axis', type: 2, i: -1 }]);
    expect(graph.output).toEqual([
      { name: 'y', elemType: OnnxDataType.FLOAT, shape: ['batch', 4] },
    ]);
  });
});
