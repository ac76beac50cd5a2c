import {
  buildWordList,
  CJK_FIRST,
  CJK_LAST,
  formatWordList,
  parseWordList,
  SPECIAL_TOKEN_IDS,
  SPECIAL_TOKENS,
} from './word-list';

const SEED = '[words]\nhello world a\n[nouns]\ncat\n[pieces]\ning s a b';

describe('buildWordList', () => {
  const tokens = buildWordList(SEED);

  it('puts the special tokens first, [PAD] at 0', () => {
    expect(tokens.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    expect(SPECIAL_TOKENS.map((t) => SPECIAL_TOKEN_IDS[t])).toEqual([0, 1, 2, 3, 4]);
  });

  it('covers every CJK ideograph U+4E00–U+9FA5, Chinese punctuation and printable ASCII', () => {
    const set = new Set(tokens);
    const expected = Array.from('，。！？；：、“”‘’（）《》【】…');
    for (let cp = CJK_FIRST; cp <= CJK_LAST; cp += 1) expected.push(String.fromCodePoint(cp));
    for (let cp = 0x21; cp <= 0x7e; cp += 1) expected.push(String.fromCharCode(cp));
    expect(expected.filter((ch) => !set.has(ch))).toEqual([]);
    expect(CJK_LAST - CJK_FIRST + 1).toBe(20902);
  });

  it('adds English words and ## pieces once each', () => {
    expect(tokens).toEqual(
      expect.arrayContaining(['hello', 'world', 'cat', 'cats', '##ing', '##s', '##a']),
    );
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(tokens.filter((t) => t === 'a')).toHaveLength(1);
  });

  it('round-trips through the file format', () => {
    expect(parseWordList(formatWordList(tokens))).toEqual(tokens);
  });
});

describe('parseWordList', () => {
  const head = '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n';

  it('rejects duplicates, blanks, whitespace and misplaced specials', () => {
    expect(() => parseWordList(`${head}a\na\n`)).toThrow(/duplicate token "a" on line 7/);
    expect(() => parseWordList(`${head}a\n\nb\n`)).toThrow(/line 7 is blank/);
    expect(() => parseWordList(`${head}a b\n`)).toThrow(/whitespace/);
    expect(() => parseWordList('[UNK]\n[PAD]\n[CLS]\n[SEP]\n[MASK]\n')).toThrow(
      /\[PAD\] must be on line 1/,
    );
    expect(() => parseWordList(`${head}a`)).toThrow(/newline/);
  });
});
