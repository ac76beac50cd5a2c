import { BigIntArr } from './testing/test-arrays';
import { OutputPostprocessor } from './output-postprocessor';
import { OutputShapeError } from './preprocessing.errors';

const classification = (topK: number, activation: 'softmax' | 'sigmoid' | 'none' = 'softmax') =>
  new OutputPostprocessor({ kind: 'classification', output: 'logits', activation, topK }, [
    'neg',
    'neu',
    'pos',
  ]);

describe('OutputPostprocessor classification', () => {
  it('turns logits into softmax scores, best label first, top-K', () => {
    const logits = new Float32Array([0, 1, 3, 5, 1, 0]);
    const [a, b] = classification(2).classify({ shape: [2, 3], data: logits }, 2) as {
      label: string;
      score: number;
      scores: { label: string; score: number }[];
    }[];
    const e = [1, Math.E, Math.E ** 3];
    const sum = e[0]! + e[1]! + e[2]!;
    expect(a!.label).toBe('pos');
    expect(a!.score).toBeCloseTo(e[2]! / sum, 6);
    expect(a!.scores.map((s) => s.label)).toEqual(['pos', 'neu']);
    expect(b!.label).toBe('neg');
    expect(b!.scores).toHaveLength(2);
  });

  it('stays finite for huge logits', () => {
    const [p] = classification(3).classify(
      { shape: [1, 3], data: new Float32Array([1e30, 0, -1e30]) },
      1,
    );
    expect(p).toMatchObject({ label: 'neg', score: 1 });
  });

  it('applies sigmoid per label when asked, and labels beyond labels.txt as LABEL_<i>', () => {
    const post = new OutputPostprocessor(
      { kind: 'classification', output: 'logits', activation: 'sigmoid', topK: 4 },
      ['a'],
    );
    const [p] = post.classify({ shape: [1, 4], data: new Float32Array([0, 2, -2, 0]) }, 1) as {
      scores: { label: string; score: number }[];
    }[];
    expect(p!.scores.map((s) => s.label)).toEqual(['LABEL_1', 'a', 'LABEL_3', 'LABEL_2']);
    expect(p!.scores[0]!.score).toBeCloseTo(1 / (1 + Math.exp(-2)), 6);
  });

  it('rejects logits that do not fit the batch', () => {
    expect(() =>
      classification(1).classify({ shape: [3, 3], data: new Float32Array(9) }, 2),
    ).toThrow(OutputShapeError);
  });
});

describe('OutputPostprocessor embeddings', () => {
  // batch 2, seq 3, hidden 2; row 2 has one padding position.
  const hidden = {
    shape: [2, 3, 2],
    data: new Float32Array([1, 0, 3, 4, 5, 6, 2, 2, 4, 0, 100, 100]),
  };
  const mask = BigIntArr([1, 1, 1, 1, 1, 0]);

  it('mean-pools over real tokens only', () => {
    const post = new OutputPostprocessor(
      { kind: 'embedding', output: 'h', pooling: 'mean', normalize: false },
      [],
    );
    expect(post.embed(hidden, 2, mask)).toEqual([
      { kind: 'embedding', embedding: [3, 10 / 3] },
      { kind: 'embedding', embedding: [3, 1] },
    ]);
  });

  it('takes the [CLS] vector and L2-normalises when asked', () => {
    const post = new OutputPostprocessor(
      { kind: 'embedding', output: 'h', pooling: 'cls', normalize: true },
      [],
    );
    const [first, second] = post.embed(hidden, 2, mask) as { embedding: number[] }[];
    expect(first!.embedding).toEqual([1, 0]);
    expect(second!.embedding[0]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('rejects hidden states whose positions do not match the mask', () => {
    const post = new OutputPostprocessor(
      { kind: 'embedding', output: 'h', pooling: 'mean', normalize: false },
      [],
    );
    expect(() => post.embed(hidden, 2, BigIntArr([1, 1]))).toThrow(OutputShapeError);
  });
});
