import type { EncodedBatch, OutputTensor, TextInput } from '@mesh/preprocessing';
import type { ChunkInference, PinnedModel } from './chunk-inference';
import { ChunkRunner } from './chunk-runner';

/** A model whose "logits" are each row's text length, so results can be traced to inputs. */
class LengthModel implements PinnedModel {
  readonly model = 'm';
  readonly version = 2;
  readonly pipeline = 'bert-wordpiece@2';
  readonly kind = 'classification' as const;
  readonly hardMaxChars = 10;
  lastRows: string[] = [];
  constructor(readonly maxBatchSize: number) {}

  encode(items: readonly TextInput[]): EncodedBatch {
    if (items.some((i) => i.text === 'bad'))
      throw Object.assign(new Error('refused'), { code: 'INVALID_INPUT' });
    this.lastRows = items.map((i) => i.text);
    return {
      batchSize: items.length,
      seqLen: 1,
      inputIds: {
        data: BigInt64Array.from(items.map((i) => BigInt(i.text.length))),
        shape: [items.length, 1],
      },
      attentionMask: { data: new BigInt64Array(items.length).fill(1n), shape: [items.length, 1] },
      typeIds: { data: new BigInt64Array(items.length), shape: [items.length, 1] },
    } as unknown as EncodedBatch;
  }

  postprocess(output: OutputTensor) {
    return Array.from(output.data, (v) => ({
      kind: 'classification' as const,
      label: `len${v}`,
      score: 1,
      scores: [],
    }));
  }
}

class EchoInference implements ChunkInference<LengthModel> {
  calls: { rows: number; priority: number }[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  servable(): LengthModel | undefined {
    return undefined;
  }
  unroutableReason(): string | undefined {
    return undefined;
  }
  infer(_v: LengthModel, batch: EncodedBatch, meta: { priority: 1 | 2 }): Promise<OutputTensor> {
    this.calls.push({ rows: batch.batchSize, priority: meta.priority });
    const ids = (batch as unknown as { inputIds: { data: BigInt64Array } }).inputIds.data;
    return Promise.resolve({ shape: [batch.batchSize, 1], data: Float32Array.from(ids, Number) });
  }
}

describe('ChunkRunner', () => {
  it('answers every item in order, in max_batch_size batches at priority 2', async () => {
    const inference = new EchoInference();
    const model = new LengthModel(2);
    const items = ['a', 'bb', 'ccc', 'dddd', 'eeeee'].map((text) => ({ text }));
    const results = await new ChunkRunner(inference).run(model, items, {
      inFlightBatches: 2,
      batchRows: 64,
      requestId: 'r',
    });
    expect(results.map((r) => (r.kind === 'classification' ? r.label : r.kind))).toEqual([
      'len1',
      'len2',
      'len3',
      'len4',
      'len5',
    ]);
    expect(inference.calls).toEqual([
      { rows: 2, priority: 2 },
      { rows: 2, priority: 2 },
      { rows: 1, priority: 2 },
    ]);
  });

  it('turns texts over hardMaxChars and refused inputs into item errors; the rest still runs', async () => {
    const inference = new EchoInference();
    const items = [
      { text: 'ok' },
      { text: 'x'.repeat(11) },
      { text: 'bad' },
      { text: 'y', textPair: 'z'.repeat(20) },
      { text: 'fine' },
    ];
    const results = await new ChunkRunner(inference).run(new LengthModel(8), items, {
      inFlightBatches: 1,
      batchRows: 64,
      requestId: 'r',
    });
    expect(
      results.map((r) =>
        r.kind === 'error' ? r.error.code : r.kind === 'classification' ? r.label : '',
      ),
    ).toEqual(['len2', 'TEXT_TOO_LONG', 'INVALID_INPUT', 'TEXT_TOO_LONG', 'len4']);
  });

  it('turns empty and whitespace-only texts into INVALID_ARGUMENT item errors, in order, never sent', async () => {
    const inference = new EchoInference();
    const model = new LengthModel(8);
    const items = [
      { text: 'ok' },
      { text: '' },
      { text: ' \t\u3000' },
      { text: 'q', textPair: '  ' },
      { text: 'fine' },
    ];
    const results = await new ChunkRunner(inference).run(model, items, {
      inFlightBatches: 1,
      batchRows: 64,
      requestId: 'r',
    });
    expect(results.map((r) => (r.kind === 'error' ? r.error : r.kind))).toEqual([
      'classification',
      { code: 'INVALID_ARGUMENT', message: 'text: must not be empty' },
      { code: 'INVALID_ARGUMENT', message: 'text: must not be empty' },
      { code: 'INVALID_ARGUMENT', message: 'textPair: must not be empty' },
      'classification',
    ]);
    expect(model.lastRows).toEqual(['ok', 'fine']);
  });

  it('batches items of similar length together, batchRows at a time, and answers in input order', async () => {
    const inference = new EchoInference();
    const model = new LengthModel(64);
    const texts = ['aaaaaa', 'b', 'cccc', 'dd', 'eeeee', 'f'];
    const results = await new ChunkRunner(inference).run(
      model,
      texts.map((text) => ({ text })),
      { inFlightBatches: 1, batchRows: 2, requestId: 'r' },
    );
    expect(results.map((r) => (r.kind === 'classification' ? r.label : r.kind))).toEqual(
      texts.map((t) => `len${t.length}`),
    );
    expect(inference.calls.map((c) => c.rows)).toEqual([2, 2, 2]);
    // The last batch holds the two longest texts.
    expect(model.lastRows).toEqual(['eeeee', 'aaaaaa']);
  });

  it('counts characters as code points: emoji are one each', async () => {
    const model = new LengthModel(8);
    const results = await new ChunkRunner(new EchoInference()).run(
      model,
      [{ text: '😀'.repeat(10) }, { text: '😀'.repeat(11) }],
      { inFlightBatches: 1, batchRows: 8, requestId: 'r' },
    );
    expect(results[0]!.kind).toBe('classification');
    expect(results[1]).toEqual({
      kind: 'error',
      error: {
        code: 'TEXT_TOO_LONG',
        message: 'text has 11 characters; the limit of m v2 is 10',
      },
    });
  });

  it('fails the chunk, not the process, when a batch in flight fails between two batches', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const inference = new EchoInference();
      let calls = 0;
      inference.infer = () => {
        calls += 1;
        // The first batch fails while the runner is already tokenizing the next one.
        return calls === 1
          ? new Promise((_, reject) => setImmediate(() => reject(new Error('UNAVAILABLE'))))
          : new Promise(() => undefined);
      };
      const items = ['a', 'b', 'c', 'd', 'e', 'f'].map((text) => ({ text }));
      await expect(
        new ChunkRunner(inference).run(new LengthModel(64), items, {
          inFlightBatches: 3,
          batchRows: 1,
          requestId: 'r',
        }),
      ).rejects.toThrow('UNAVAILABLE');
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
