import { MODEL_SIZES } from './bert-dimensions';
import { buildBertOnnx, type BertModelSpec } from './bert-onnx';
import { decodeOnnxModel } from './onnx-proto';

// The real vocabulary size, so the word-embedding table has its served shape.
const VOCAB_SIZE = 29976;

const classifier: BertModelSpec = {
  name: 'intent-zh',
  seed: 'intent-zh@1',
  vocabSize: VOCAB_SIZE,
  dims: MODEL_SIZES.tiny,
  head: { kind: 'classification', numLabels: 6 },
};
const encoder: BertModelSpec = {
  ...classifier,
  name: 'text-embed-zh',
  seed: 'text-embed-zh@1',
  head: { kind: 'encoder' },
};

interface DecodedTensorInfo {
  name: string;
  type: {
    tensorType: {
      elemType: number;
      shape: { dim: Array<{ dimValue?: number; dimParam?: string }> };
    };
  };
}

function shapeOf(info: DecodedTensorInfo): Array<number | string | undefined> {
  return info.type.tensorType.shape.dim.map((d) => d.dimParam ?? d.dimValue);
}

describe('buildBertOnnx', () => {
  it.each([
    ['classifier', classifier],
    ['encoder', encoder],
  ])('writes byte-identical files for the same %s spec', (_kind, spec) => {
    const first = buildBertOnnx(spec);
    const second = buildBertOnnx({ ...spec, dims: { ...spec.dims } });
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
  });

  it('gives each seed (model version) different weights', () => {
    const v1 = buildBertOnnx(classifier);
    const v2 = buildBertOnnx({ ...classifier, seed: 'intent-zh@2' });
    expect(v1.length).toBe(v2.length);
    expect(Buffer.from(v1).equals(Buffer.from(v2))).toBe(false);
  });

  it('declares opset 17, IR 8 and dynamic int64 inputs', () => {
    const model = decodeOnnxModel(buildBertOnnx(classifier)) as {
      irVersion: number;
      opsetImport: Array<{ domain?: string; version: number }>;
      graph: { input: DecodedTensorInfo[]; output: DecodedTensorInfo[] };
    };
    expect(model.irVersion).toBe(8);
    expect(model.opsetImport).toEqual([{ domain: '', version: 17 }]);
    expect(model.graph.input.map((i) => [i.name, i.type.tensorType.elemType, shapeOf(i)])).toEqual([
      ['input_ids', 7, ['batch', 'sequence']],
      ['attention_mask', 7, ['batch', 'sequence']],
      ['token_type_ids', 7, ['batch', 'sequence']],
    ]);
    expect(model.graph.output.map((o) => [o.name, o.type.tensorType.elemType, shapeOf(o)])).toEqual(
      [['logits', 1, ['batch', 6]]],
    );
  });

  it('builds the BERT layer stack: LayerNorm, attention softmax, erf GELU, tanh pooler', () => {
    const model = decodeOnnxModel(buildBertOnnx(classifier)) as {
      graph: {
        node: Array<{ opType: string }>;
        initializer: Array<{ name: string; dims: number[]; rawData: Buffer }>;
      };
    };
    const count = (op: string): number => model.graph.node.filter((n) => n.opType === op).length;
    const layers = MODEL_SIZES.tiny.layers;
    expect(count('LayerNormalization')).toBe(1 + 2 * layers);
    expect(count('Softmax')).toBe(layers);
    expect(count('Erf')).toBe(layers);
    expect(count('Tanh')).toBe(1);
    const word = model.graph.initializer.find((t) => t.name === 'embeddings.word_embeddings');
    expect(word?.dims).toEqual([VOCAB_SIZE, 128]);
    for (const tensor of model.graph.initializer) {
      const elements = (tensor.dims ?? []).reduce((n, d) => n * d, 1);
      expect(tensor.rawData.length % elements).toBe(0);
    }
  });

  it('ends the encoder variant at last_hidden_state [batch, sequence, hidden]', () => {
    const model = decodeOnnxModel(buildBertOnnx(encoder)) as {
      graph: { node: Array<{ opType: string }>; output: DecodedTensorInfo[] };
    };
    expect(model.graph.output.map((o) => [o.name, shapeOf(o)])).toEqual([
      ['last_hidden_state', ['batch', 'sequence', 128]],
    ]);
    expect(model.graph.node.some((n) => n.opType === 'Tanh')).toBe(false);
  });

  it.each([
    ['classifier', classifier],
    ['encoder', encoder],
  ])('gives the %s no initializer that no node reads (onnxruntime warns at load)', (_, spec) => {
    const model = decodeOnnxModel(buildBertOnnx(spec)) as {
      graph: { node: Array<{ input: string[] }>; initializer: Array<{ name: string }> };
    };
    const read = new Set(model.graph.node.flatMap((n) => n.input));
    expect(model.graph.initializer.map((t) => t.name).filter((n) => !read.has(n))).toEqual([]);
  });

  it('refuses a hidden size not divisible by the head count', () => {
    expect(() => buildBertOnnx({ ...classifier, dims: { ...MODEL_SIZES.tiny, heads: 3 } })).toThrow(
      /divisible/,
    );
  });
});
