import { MODEL_SIZES } from './bert-dimensions';
import { buildBertOnnx, type BertModelSpec } from './bert-onnx';
import { OrtWorkerClient, type Int64Feed } from './testing/ort-worker.client';

const VOCAB_SIZE = 29976;
const NUM_LABELS = 10;
const PAD = 0;
const CLS = 2;
const SEP = 3;

const base: BertModelSpec = {
  name: 'question-type-zh',
  seed: 'question-type-zh@2',
  vocabSize: VOCAB_SIZE,
  dims: MODEL_SIZES.tiny,
  head: { kind: 'classification', numLabels: NUM_LABELS },
};

/** Right-pads every sequence to `length` with [PAD] and attention_mask 0. */
function feeds(
  sequences: number[][],
  length = Math.max(...sequences.map((s) => s.length)),
  typeIds?: number[][],
) {
  const ids = new BigInt64Array(sequences.length * length);
  const mask = new BigInt64Array(sequences.length * length);
  const types = new BigInt64Array(sequences.length * length);
  sequences.forEach((seq, row) => {
    seq.forEach((id, col) => {
      ids[row * length + col] = BigInt(id);
      mask[row * length + col] = 1n;
      types[row * length + col] = BigInt(typeIds?.[row]?.[col] ?? 0);
    });
    for (let col = seq.length; col < length; col += 1) ids[row * length + col] = BigInt(PAD);
  });
  const dims = [sequences.length, length];
  return {
    input_ids: { data: ids, dims },
    attention_mask: { data: mask, dims },
    token_type_ids: { data: types, dims },
  };
}

async function run(session: OrtWorkerClient, input: Record<string, Int64Feed>, output: string) {
  const result = await session.run(input);
  return result[output]!;
}

function maxAbsDiff(a: number[], b: number[]): number {
  expect(a).toHaveLength(b.length);
  return a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
}

// Chinese characters and English words from the demo vocabulary.
const SENTENCES = [
  [CLS, 603, 3192, 168, SEP],
  [CLS, 453, 3108, 3108, 7951, 4873, 323, SEP],
  [CLS, 28924, 25842, 29585, 21163, 29761, 16, SEP],
  [CLS, 1200, 900, SEP],
];

describe('generated BERT classifier in onnxruntime-node', () => {
  let session: OrtWorkerClient;

  beforeAll(async () => {
    session = await OrtWorkerClient.load(buildBertOnnx(base));
  });

  afterAll(async () => {
    await session.close();
  });

  it('exposes the pinned input and output names', () => {
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    expect(session.outputNames).toEqual(['logits']);
  });

  it('runs batch 1 and returns finite logits [1, num_labels]', async () => {
    const { dims, data } = await run(session, feeds([SENTENCES[0]!]), 'logits');
    expect(dims).toEqual([1, NUM_LABELS]);
    expect(data.every(Number.isFinite)).toBe(true);
  });

  it('runs batch 4 and each row equals the same text run alone', async () => {
    const batch = await run(session, feeds(SENTENCES), 'logits');
    expect(batch.dims).toEqual([4, NUM_LABELS]);
    for (const [row, sentence] of SENTENCES.entries()) {
      const alone = await run(session, feeds([sentence]), 'logits');
      const rowLogits = batch.data.slice(row * NUM_LABELS, (row + 1) * NUM_LABELS);
      expect(maxAbsDiff(rowLogits, alone.data)).toBeLessThan(1e-4);
    }
  });

  it('gives visibly different logits for different inputs', async () => {
    const { data } = await run(session, feeds(SENTENCES), 'logits');
    const rows = SENTENCES.map((_, r) => data.slice(r * NUM_LABELS, (r + 1) * NUM_LABELS));
    for (let a = 0; a < rows.length; a += 1) {
      for (let b = a + 1; b < rows.length; b += 1)
        expect(maxAbsDiff(rows[a]!, rows[b]!)).toBeGreaterThan(0.1);
    }
  });

  it('is padding invariant: [PAD] positions with attention_mask 0 do not change the logits', async () => {
    const sentence = SENTENCES[1]!;
    const unpadded = await run(session, feeds([sentence]), 'logits');
    for (const length of [sentence.length + 1, 32, 128]) {
      const padded = await run(session, feeds([sentence], length), 'logits');
      expect(maxAbsDiff(padded.data, unpadded.data)).toBeLessThan(1e-4);
    }
  });

  it('reads token_type_ids (sentence pairs differ from single segments)', async () => {
    const pair = [CLS, 603, 3192, SEP, 28924, 25842, SEP];
    const single = await run(session, feeds([pair]), 'logits');
    const typed = await run(session, feeds([pair], pair.length, [[0, 0, 0, 0, 1, 1, 1]]), 'logits');
    expect(maxAbsDiff(single.data, typed.data)).toBeGreaterThan(1e-3);
  });

  it('gives another version (seed) different logits for the same input', async () => {
    const other = await OrtWorkerClient.load(
      buildBertOnnx({ ...base, seed: 'question-type-zh@1' }),
    );
    try {
      const a = await run(session, feeds([SENTENCES[0]!]), 'logits');
      const b = await run(other, feeds([SENTENCES[0]!]), 'logits');
      expect(maxAbsDiff(a.data, b.data)).toBeGreaterThan(0.1);
    } finally {
      await other.close();
    }
  });
});

describe('generated BERT encoder in onnxruntime-node', () => {
  it('returns last_hidden_state [batch, seq, 128], unchanged at real positions by padding', async () => {
    const session = await OrtWorkerClient.load(
      buildBertOnnx({ ...base, seed: 'text-embed-zh@1', head: { kind: 'encoder' } }),
    );
    try {
      expect(session.outputNames).toEqual(['last_hidden_state']);
      const batch = await run(session, feeds([SENTENCES[0]!, SENTENCES[1]!]), 'last_hidden_state');
      expect(batch.dims).toEqual([2, 8, 128]);
      const alone = await run(session, feeds([SENTENCES[0]!]), 'last_hidden_state');
      expect(alone.dims).toEqual([1, 5, 128]);
      const realPositions = batch.data.slice(0, 5 * 128);
      expect(maxAbsDiff(realPositions, alone.data)).toBeLessThan(1e-4);
    } finally {
      await session.close();
    }
  });
});

describe('generated small (MiniLM-sized) classifier', () => {
  it('runs in onnxruntime-node (batch 2) and stays padding invariant', async () => {
    const spec: BertModelSpec = {
      ...base,
      seed: 'intent-zh@2',
      dims: MODEL_SIZES.small,
      head: { kind: 'classification', numLabels: 6 },
    };
    const session = await OrtWorkerClient.load(buildBertOnnx(spec));
    try {
      const batch = await run(session, feeds([SENTENCES[0]!, SENTENCES[1]!], 16), 'logits');
      expect(batch.dims).toEqual([2, 6]);
      const alone = await run(session, feeds([SENTENCES[0]!]), 'logits');
      expect(maxAbsDiff(batch.data.slice(0, 6), alone.data)).toBeLessThan(1e-4);
      expect(maxAbsDiff(batch.data.slice(0, 6), batch.data.slice(6))).toBeGreaterThan(0.1);
    } finally {
      await session.close();
    }
  });
});

describe("a generated version with fault 'run' in onnxruntime-node", () => {
  it('loads with the pinned inputs and outputs, runs an all-[PAD] warm-up, fails every real inference', async () => {
    const faulty = await OrtWorkerClient.load(buildBertOnnx({ ...base, fault: 'run' }));
    try {
      expect(faulty.outputNames).toEqual(['logits']);
      const warmup = await run(faulty, feeds([[PAD, PAD, PAD, PAD]]), 'logits');
      expect(warmup.dims).toEqual([1, NUM_LABELS]);
      for (const batch of [[SENTENCES[0]!], SENTENCES]) {
        await expect(faulty.run(feeds(batch))).rejects.toThrow(/indices|out of (data )?bounds/i);
      }
    } finally {
      await faulty.close();
    }
  });
});
