import { MODEL_SIZES } from '../../../../scripts/models/bert-dimensions';
import { buildBertOnnx } from '../../../../scripts/models/bert-onnx';
import { OnnxGraphBuilder, attr } from '../../../../scripts/models/onnx-graph.builder';
import { OnnxDataType, encodeOnnxModel } from '../../../../scripts/models/onnx-proto';
import { findInputBounds } from './input-bounds-finder';
import { readOnnxGraphWiring } from './onnx-graph-reader';

const IDS = ['batch', 'sequence'];

function table(g: OnnxGraphBuilder, name: string, rows: number, width = 4): string {
  return g.floatInitializer(name, [rows, width], new Float32Array(rows * width));
}

function bytesOf(g: OnnxGraphBuilder): Uint8Array {
  return encodeOnnxModel({
    producerName: 'input-bounds-spec',
    producerVersion: '1',
    docString: '',
    graph: g.build('g'),
    metadata: [],
  });
}

const boundsOf = (g: OnnxGraphBuilder) => findInputBounds(readOnnxGraphWiring(bytesOf(g)));

describe('findInputBounds', () => {
  it('reads the word, token-type and position tables of a generated demo model', () => {
    const bytes = buildBertOnnx({
      name: 'sentiment-en',
      seed: 'sentiment-en@1',
      vocabSize: 29976,
      dims: MODEL_SIZES.tiny,
      head: { kind: 'classification', numLabels: 3 },
    });
    expect(findInputBounds(readOnnxGraphWiring(bytes))).toMatchObject({
      ids: {
        input_ids: { rows: 29976, table: 'embedding table' },
        token_type_ids: { rows: 2, table: 'token-type embedding table' },
      },
      sequence: { input: 'input_ids', rows: 512, table: 'position embedding table' },
    });
  });

  it('follows ids through casts and unsqueezes, and positions gathered from a sliced id buffer', () => {
    // The shape of a typical PyTorch export: INT32 ids cast to INT64, a registered
    // position_ids buffer [1, 40] sliced to the sequence length, then gathered.
    const g = new OnnxGraphBuilder();
    const ids = g.input('input_ids', OnnxDataType.INT64, IDS);
    const types = g.input('token_type_ids', OnnxDataType.INT64, IDS);
    const word = table(g, 'word', 300);
    const position = table(g, 'position', 40);
    const type = table(g, 'type', 3);
    const buffer = g.int64Initializer(
      'position_ids',
      [1, 40],
      Array.from({ length: 40 }, (_, i) => i),
    );
    const zero = g.int64Initializer('zero', [1], [0]);
    const one = g.int64Initializer('one', [1], [1]);
    const cast = g.op('Cast', [ids], 'ids64', [attr.int('to', OnnxDataType.INT64)]);
    const typesCast = g.op('Unsqueeze', [g.op('Squeeze', [types], 'sq')], 'unsq');
    const seqLen = g.op('Gather', [g.op('Shape', [ids], 'shape'), one], 'seq');
    const positions = g.op('Slice', [buffer, zero, g.op('Unsqueeze', [seqLen], 'end'), one], 'p');
    const sum = g.op(
      'Add',
      [
        g.op('Gather', [word, cast], 'w'),
        g.op(
          'Add',
          [g.op('Gather', [position, positions], 'pe'), g.op('Gather', [type, typesCast], 'te')],
          's',
        ),
      ],
      'sum',
    );
    g.exposeAs(sum, 'out', OnnxDataType.FLOAT, [...IDS, 4]);
    expect(boundsOf(g)).toMatchObject({
      ids: {
        input_ids: { rows: 300, table: 'embedding table' },
        token_type_ids: { rows: 3, table: 'token-type embedding table' },
      },
      sequence: { input: 'input_ids', rows: 40, table: 'position embedding table' },
    });
  });

  it("reads ORT's fused EmbedLayerNormalization", () => {
    const g = new OnnxGraphBuilder();
    const ids = g.input('input_ids', OnnxDataType.INT64, IDS);
    const seg = g.input('token_type_ids', OnnxDataType.INT64, IDS);
    const gamma = g.floatInitializer('gamma', [4], new Float32Array(4));
    const inputs = [ids, seg, table(g, 'w', 50), table(g, 'p', 16), table(g, 't', 2), gamma, gamma];
    g.exposeAs(g.op('EmbedLayerNormalization', inputs, 'emb'), 'out', OnnxDataType.FLOAT, IDS);
    expect(boundsOf(g)).toMatchObject({
      ids: {
        input_ids: { rows: 50, table: 'embedding table' },
        token_type_ids: { rows: 2, table: 'token-type embedding table' },
      },
      sequence: { input: 'input_ids', rows: 16, table: 'position embedding table' },
    });
  });

  it('ignores gathers from computed tensors and along other axes', () => {
    const g = new OnnxGraphBuilder();
    const x = g.input('x', OnnxDataType.FLOAT, ['batch', 'n', 4]);
    const idx = g.input('idx', OnnxDataType.INT64, ['batch']);
    const weights = table(g, 'weights', 10);
    const picked = g.op('Gather', [x, idx], 'picked');
    const columns = g.op('Gather', [weights, idx], 'columns', [attr.int('axis', 1)]);
    g.exposeAs(g.op('Add', [picked, columns], 'sum'), 'y', OnnxDataType.FLOAT, ['batch', 4]);
    // No table bounds; only the batch axis both inputs name.
    expect(boundsOf(g)).toEqual({
      ids: {},
      sameSize: [
        {
          dim: 'batch',
          members: [
            { input: 'x', axis: 0 },
            { input: 'idx', axis: 0 },
          ],
        },
      ],
    });
  });

  it('finds nothing in a graph without embeddings', () => {
    const g = new OnnxGraphBuilder();
    const x = g.input('x', OnnxDataType.FLOAT, ['batch', 'n']);
    g.exposeAs(g.op('Relu', [x], 'relu'), 'y', OnnxDataType.FLOAT, ['batch', 'n']);
    expect(boundsOf(g)).toBeUndefined();
  });
});

describe('readOnnxGraphWiring', () => {
  it('reads inputs, initializer dims and wiring, not the weights', () => {
    const g = new OnnxGraphBuilder();
    const ids = g.input('input_ids', OnnxDataType.INT64, IDS);
    const word = table(g, 'word', 7, 3);
    g.exposeAs(g.op('Gather', [word, ids], 'w', [attr.int('axis', 0)]), 'y', OnnxDataType.FLOAT, [
      ...IDS,
      3,
    ]);
    const wiring = readOnnxGraphWiring(bytesOf(g));
    expect(wiring.inputs).toEqual(['input_ids']);
    expect([...wiring.initializers]).toEqual([['word', [7, 3]]]);
    expect(wiring.nodes).toEqual([
      {
        opType: 'Gather',
        domain: '',
        input: ['word', 'input_ids'],
        output: ['w'],
        ints: { axis: 0 },
      },
      { opType: 'Identity', domain: '', input: ['w'], output: ['y'], ints: {} },
    ]);
  });

  it('throws on bytes that are not a ModelProto', () => {
    expect(() => readOnnxGraphWiring(Uint8Array.from([0x3a, 0xff, 0xff, 0xff]))).toThrow();
  });
});
