import { Tokenizer } from '@huggingface/tokenizers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { buildTokenizerJson } from './tokenizer-json';
import {
  buildWordList,
  formatWordList,
  readWordListFile,
  SPECIAL_TOKEN_IDS,
  WORD_LIST_PATH,
} from './word-list';

const ROOT = join(__dirname, '..', '..');
const committedTokenizer = readFileSync(
  join(ROOT, 'model_repository/intent-zh/1/tokenizer.json'),
  'utf8',
);

const TEXTS: Array<[string, string | null]> = [
  ['今天北京的天气怎么样？我想订一张去上海的机票。', null],
  ['The delivery was LATE and the package was damaged, I want a refund!', null],
  ['《三体》这本书真的很好看！推荐给大家～', null],
  ['Café résumé, naïve: 2024年的第1季度 x86_64 zebras', null],
  ['这个产品怎么样', 'Is it worth buying?'],
];

describe('committed word list', () => {
  it('is what build-word-list makes from the committed English seed', () => {
    const seed = readFileSync(join(ROOT, 'scripts/data/english-seed.txt'), 'utf8');
    expect(readFileSync(WORD_LIST_PATH, 'utf8')).toBe(formatWordList(buildWordList(seed)));
  });

  it('has about 30k tokens with the special tokens at ids 0..4', () => {
    const vocab = readWordListFile();
    expect(vocab.length).toBeGreaterThan(28000);
    expect(vocab.length).toBeLessThan(32000);
    expect(vocab.slice(0, 5)).toEqual(Object.keys(SPECIAL_TOKEN_IDS));
  });
});

describe('committed tokenizer.json', () => {
  it('is built from the committed word list', () => {
    expect(committedTokenizer).toBe(buildTokenizerJson(readWordListFile()));
  });

  it('loads in @huggingface/tokenizers and encodes Chinese and English without [UNK]', () => {
    const tokenizer = new Tokenizer(JSON.parse(committedTokenizer), {});
    for (const [text, pair] of TEXTS) {
      const encoded = tokenizer.encode(text, { text_pair: pair, return_token_type_ids: true });
      expect({
        text,
        unk: encoded.ids.filter((id) => id === SPECIAL_TOKEN_IDS['[UNK]']).length,
      }).toEqual({ text, unk: 0 });
      expect(encoded.ids[0]).toBe(SPECIAL_TOKEN_IDS['[CLS]']);
    }
    expect(tokenizer.tokenize('我想订机票 booking')).toEqual([
      '我',
      '想',
      '订',
      '机',
      '票',
      'booking',
    ]);
  });

  it('encodes exactly like the Rust tokenizers library, which also writes the same bytes back', async () => {
    const js = new Tokenizer(JSON.parse(committedTokenizer), {});
    const rust = RustTokenizer.fromString(committedTokenizer);
    for (const [text, pair] of TEXTS) {
      const expected = await rust.encode(text, pair);
      const actual = js.encode(text, { text_pair: pair, return_token_type_ids: true });
      expect({ text, ids: actual.ids, typeIds: actual.token_type_ids }).toEqual({
        text,
        ids: expected.getIds(),
        typeIds: expected.getTypeIds(),
      });
    }
    const dir = mkdtempSync(join(tmpdir(), 'mesh-tokenizer-'));
    try {
      rust.save(join(dir, 'tokenizer.json'), true);
      expect(readFileSync(join(dir, 'tokenizer.json'), 'utf8')).toBe(committedTokenizer);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
