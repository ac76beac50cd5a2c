import { Tokenizer } from '@huggingface/tokenizers';
import { buildTokenizerJson } from './tokenizer-json';
import { buildWordList } from './word-list';

const SEED =
  '[words]\nthe movie was great\n[verbs]\nlove\n[pieces]\na b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9';

describe('buildTokenizerJson', () => {
  const vocab = buildWordList(SEED);
  const text = buildTokenizerJson(vocab);
  const json = JSON.parse(text);

  it('is the same text every time, without a trailing newline (as the Rust library saves it)', () => {
    expect(text.endsWith('}')).toBe(true);
    expect(buildTokenizerJson(buildWordList(SEED))).toBe(text);
  });

  it('describes an uncased BERT WordPiece tokenizer', () => {
    expect(Object.keys(json)).toEqual([
      'version',
      'truncation',
      'padding',
      'added_tokens',
      'normalizer',
      'pre_tokenizer',
      'post_processor',
      'decoder',
      'model',
    ]);
    expect(json.normalizer).toEqual({
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    });
    expect(json.pre_tokenizer).toEqual({ type: 'BertPreTokenizer' });
    expect(json.model).toMatchObject({
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
    });
    expect(
      json.added_tokens.map((t: { id: number; content: string }) => [t.id, t.content]),
    ).toEqual([
      [0, '[PAD]'],
      [1, '[UNK]'],
      [2, '[CLS]'],
      [3, '[SEP]'],
      [4, '[MASK]'],
    ]);
    expect(json.post_processor.special_tokens['[SEP]'].ids).toEqual([3]);
  });

  it('lists the vocabulary in id order', () => {
    const ids = json.model.vocab as Record<string, number>;
    expect(Object.keys(ids)).toHaveLength(vocab.length);
    expect(vocab.map((token) => ids[token])).toEqual(vocab.map((_, id) => id));
    const vocabText = text.slice(text.indexOf('"vocab": {'));
    const idsInTextOrder = [...vocabText.matchAll(/^ {6}".*": (\d+),?$/gm)].map((m) =>
      Number(m[1]),
    );
    expect(idsInTextOrder).toEqual(vocab.map((_, id) => id));
  });

  it('tokenizes Chinese and English text without [UNK] in @huggingface/tokenizers', () => {
    const tokenizer = new Tokenizer(json, {});
    const encoded = tokenizer.encode('我爱这部电影！The MOVIE was great, loving it 2024', {
      text_pair: '你好',
      return_token_type_ids: true,
    });
    expect(encoded.tokens).toEqual([
      '[CLS]',
      '我',
      '爱',
      '这',
      '部',
      '电',
      '影',
      '！',
      'the',
      'movie',
      'was',
      'great',
      ',',
      'loving',
      'i',
      '##t',
      '2',
      '##0',
      '##2',
      '##4',
      '[SEP]',
      '你',
      '好',
      '[SEP]',
    ]);
    expect(encoded.ids).not.toContain(1);
    expect(encoded.ids[0]).toBe(2);
    expect(encoded.token_type_ids).toEqual([...Array<number>(21).fill(0), 1, 1, 1]);
  });

  it('maps characters outside the vocabulary to [UNK]', () => {
    const tokenizer = new Tokenizer(json, {});
    expect(tokenizer.encode('😀').ids).toEqual([2, 1, 3]);
  });
});
