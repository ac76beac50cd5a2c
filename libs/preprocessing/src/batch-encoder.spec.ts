import { fixtureEncoder, fixtureTokenizer } from './testing/fixture-tokenizer';
import { InputTooLargeError, InputValidationError } from './preprocessing.errors';
import { batchTensors, int64TensorBytes } from './raw-input-contents';

const rows = (data: BigInt64Array, seq: number): number[][] =>
  Array.from({ length: data.length / seq }, (_, r) =>
    Array.from(data.subarray(r * seq, (r + 1) * seq), Number),
  );

describe('BatchEncoder tensors', () => {
  it('pads @1 to maxLength and @2 to the longest item of the batch', () => {
    const inputs = [{ text: 'hello world' }, { text: 'the weather today' }];
    const fixed = fixtureEncoder(1).encode(inputs);
    const dynamic = fixtureEncoder(2).encode(inputs);
    expect([fixed.batchSize, fixed.seqLength]).toEqual([2, 16]);
    expect([dynamic.batchSize, dynamic.seqLength]).toEqual([2, 5]);
    expect(dynamic.inputIds.shape).toEqual([2, 5]);
    expect(rows(dynamic.attentionMask.data, 5)).toEqual([
      [1, 1, 1, 1, 0],
      [1, 1, 1, 1, 1],
    ]);
    expect(Array.from(dynamic.tokenCounts)).toEqual([4, 5]);
    expect(rows(fixed.inputIds.data, 16)[0]!.slice(0, 5)).toEqual(
      rows(dynamic.inputIds.data, 5)[0],
    );
  });

  it('rounds dynamic padding up to a length bucket, capped at maxLength', () => {
    const inputs = [{ text: 'hello world' }, { text: 'the weather today' }];
    const plain = fixtureEncoder(2).encode(inputs);
    const bucketed = fixtureEncoder(2, { padMultiple: 4 }).encode(inputs);
    expect(bucketed.seqLength).toBe(8);
    expect(bucketed.inputIds.shape).toEqual([2, 8]);
    expect(rows(bucketed.attentionMask.data, 8)).toEqual([
      [1, 1, 1, 1, 0, 0, 0, 0],
      [1, 1, 1, 1, 1, 0, 0, 0],
    ]);
    expect(rows(bucketed.inputIds.data, 8).map((r) => r.slice(0, 5))).toEqual(
      rows(plain.inputIds.data, 5),
    );
    expect(Array.from(bucketed.tokenCounts)).toEqual([4, 5]);
    // Two texts of different lengths in one bucket get the same shape.
    const one = fixtureEncoder(2, { padMultiple: 8 }).encode([{ text: 'hello' }]);
    const two = fixtureEncoder(2, { padMultiple: 8 }).encode([{ text: 'the weather today' }]);
    expect(one.inputIds.shape).toEqual(two.inputIds.shape);
    expect(fixtureEncoder(2, { padMultiple: 12 }).encode(inputs).seqLength).toBe(12);
    expect(fixtureEncoder(2, { padMultiple: 32 }).encode(inputs).seqLength).toBe(16);
    // Fixed padding is already one shape; the bucket does not apply.
    expect(fixtureEncoder(1, { padMultiple: 32 }).encode(inputs).seqLength).toBe(16);
  });

  it('writes INT64 values readable as BigInt and as little-endian bytes', () => {
    const batch = fixtureEncoder(2).encode([{ text: 'hello' }]);
    const bytes = int64TensorBytes(batch.inputIds);
    expect(bytes.length).toBe(batch.inputIds.data.length * 8);
    const cls = fixtureTokenizer().tokenToId('[CLS]')!;
    expect(bytes.readBigInt64LE(0)).toBe(BigInt(cls));
    expect(batch.inputIds.data[0]).toBe(BigInt(cls));
  });

  it('names tensors from the manifest and leaves out type ids when the model takes none', () => {
    const withTypes = fixtureEncoder(2).encode([{ text: 'a' }]);
    expect(withTypes.tensors.map((t) => t.name)).toEqual([
      'input_ids',
      'attention_mask',
      'token_type_ids',
    ]);
    const without = fixtureEncoder(2, { inputNames: { ids: 'ids', mask: 'mask' } }).encode([
      { text: 'a' },
    ]);
    expect(without.tensors.map((t) => t.name)).toEqual(['ids', 'mask']);
    expect(batchTensors(without)).toEqual(without.tensors);
  });

  it('marks type ids of the second text 1 and flags truncation per item', () => {
    const batch = fixtureEncoder(2, { maxLength: 10 }).encode([
      { text: 'hello', textPair: 'world' },
      { text: 'a b c d e f g h', textPair: 'i j k l' },
    ]);
    expect(rows(batch.tokenTypeIds.data, batch.seqLength)[0]).toEqual([
      0, 0, 0, 1, 1, 0, 0, 0, 0, 0,
    ]);
    expect(batch.truncated).toEqual([false, true]);
    expect(Array.from(batch.tokenCounts)).toEqual([5, 10]);
  });
});

describe('BatchEncoder inputs users send', () => {
  const encoder = fixtureEncoder(2);

  it.each([
    ['empty string', '', ['[CLS]', '[SEP]']],
    ['whitespace only', ' \t\n\u3000 ', ['[CLS]', '[SEP]']],
    ['control characters', '\u0000\u0007hello\u001b', ['[CLS]', 'hello', '[SEP]']],
    ['lone surrogates', 'ab\ud800cd\udfff', ['[CLS]', 'a', '##b', '##c', '##d', '[SEP]']],
    ['emoji', '😀 hello 👍🏽', ['[CLS]', '[UNK]', 'hello', '[UNK]', '[SEP]']],
    [
      'mixed Chinese/English',
      '今天hello世界',
      ['[CLS]', '今', '天', 'hello', '世', '[UNK]', '[SEP]'],
    ],
  ])('encodes %s deterministically', (_name, text, tokens) => {
    const first = encoder.tokenize({ text });
    expect(first.tokens).toEqual(tokens);
    expect(encoder.tokenize({ text })).toEqual(first);
  });

  it('replaces a lone surrogate by U+FFFD, which BERT normalisation drops', () => {
    expect(encoder.tokenize({ text: 'a\ud800b' }).ids).toEqual(
      encoder.tokenize({ text: 'a\ufffdb' }).ids,
    );
  });

  it('rejects text over hardMaxChars with TEXT_TOO_LONG naming the field and index', () => {
    const small = fixtureEncoder(2, { hardMaxChars: 10 });
    const run = () => small.encode([{ text: 'ok' }, { text: 'short', textPair: 'x'.repeat(11) }]);
    expect(run).toThrow(InputTooLargeError);
    expect(run).toThrow(
      expect.objectContaining({ code: 'TEXT_TOO_LONG', field: 'textPair', index: 1, limit: 10 }),
    );
  });

  it.each([
    ['an empty batch', []],
    ['a non-string text', [{ text: 42 }]],
    ['a null item', [null]],
  ])('rejects %s with INVALID_INPUT', (_name, inputs) => {
    expect(() => encoder.encode(inputs as never)).toThrow(InputValidationError);
  });

  it('rejects a text pair for @1, which takes single texts', () => {
    expect(() => fixtureEncoder(1).encode([{ text: 'a', textPair: 'b' }])).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});

describe('BatchEncoder on long texts', () => {
  const words = 'the quick brown fox jumps over the lazy dog 今天天气很好，我们 running! '.split(
    ' ',
  );

  /** Deterministic long text of `n` characters at least. */
  const longText = (n: number, seed: number): string => {
    const parts: string[] = [];
    let len = 0;
    for (let i = 0; len < n; i++) {
      const w = words[(i * 7 + seed) % words.length]!;
      parts.push(w);
      len += w.length + 1;
    }
    return parts.join(seed % 2 === 0 ? ' ' : '');
  };

  it.each([1, 2])('@%i: capped tokenization equals tokenizing the whole text', (version) => {
    const capped = fixtureEncoder(version, { maxLength: 128 });
    for (let seed = 0; seed < 12; seed++) {
      const text = longText(3000 + seed * 997, seed);
      const full = fixtureTokenizer().segment(text, (s) =>
        version === 2 ? s.normalize('NFKC') : s,
      );
      const t = capped.tokenize({ text });
      expect(t.truncated).toBe(true);
      expect(t.ids.slice(1, -1)).toEqual(full.ids.slice(0, 126));
    }
  });

  it('never cuts inside an added token such as [SEP]', () => {
    const text = 'a '.repeat(300) + '[SEP]'.repeat(400);
    const full = fixtureTokenizer().segment(text, (s) => s);
    expect(fixtureEncoder(2, { maxLength: 512 }).tokenize({ text }).ids.slice(1, -1)).toEqual(
      full.ids.slice(0, 510),
    );
  });

  it.each([
    ['English', 'hello world '],
    ['Chinese', '今天天气很好我们一起去'],
    ['punctuation', 'a,b.c;'],
  ])('encodes a 1 MB %s string by tokenizing only a short prefix of it', (_name, unit) => {
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const t = fixtureEncoder(2, { maxLength: 128 }).tokenize({ text });
    expect(t.ids).toHaveLength(128);
    expect(t.truncated).toBe(true);
    // The cost is bounded by construction: normalisation and tokenization only ever see a
    // prefix a few thousand characters long, never the whole megabyte.
    const prepared: number[] = [];
    const seg = fixtureTokenizer().segment(
      text,
      (s) => {
        prepared.push(s.length);
        return s;
      },
      128,
    );
    expect(seg.complete).toBe(false);
    expect(prepared.length).toBeGreaterThan(0);
    expect(Math.max(...prepared)).toBeLessThanOrEqual(130 * 8 * 4);
  });

  it('encodes a 1 MB string without any word boundary (one [UNK])', () => {
    expect(fixtureEncoder(2).tokenize({ text: 'a'.repeat(1_000_000) }).tokens).toEqual([
      '[CLS]',
      '[UNK]',
      '[SEP]',
    ]);
  });
});

describe('BatchEncoder on arbitrary UTF-16', () => {
  // Random code units, lone surrogates included: every item must encode, twice the same way.
  let seed = 12345;
  const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const texts = Array.from({ length: 2000 }, () =>
    String.fromCharCode(
      ...Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 0x10000)),
    ),
  );

  it.each([1, 2])(
    '@%i encodes 2,000 random strings without throwing, deterministically',
    (version) => {
      const encoder = fixtureEncoder(version, { maxLength: 64 });
      for (let i = 0; i < texts.length; i += 50) {
        const inputs = texts.slice(i, i + 50).map((text) => ({ text }));
        const first = encoder.encode(inputs);
        const again = encoder.encode(inputs);
        expect(again.inputIds.data).toEqual(first.inputIds.data);
        expect(Math.max(...first.tokenCounts)).toBeLessThanOrEqual(64);
      }
    },
  );
});
