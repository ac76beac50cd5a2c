/**
 * Every code point, in context "a<c>b", tokenizes the same with this library and with Hugging
 * Face's Rust tokenizers: the BMP and the supplementary plane in full (where the two Unicode
 * tables disagree on 658 characters, see rust-unicode-compat.ts), every 7th code point above.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { BertTokenizer } from './bert-tokenizer';

jest.setTimeout(120_000);

const FILE = join(__dirname, 'testing', 'bert-fixture.tokenizer.json');

function codePoints(): number[] {
  const out: number[] = [];
  for (let cp = 0; cp < 0x110000; cp += cp < 0x20000 ? 1 : 7) {
    if (cp < 0xd800 || cp > 0xdfff) out.push(cp);
  }
  return out;
}

it('tokenizes every scanned code point like the Rust tokenizer', async () => {
  const ours = BertTokenizer.fromJson(readFileSync(FILE, 'utf8'));
  const rust = RustTokenizer.fromFile(FILE);
  const cps = codePoints();
  const differing: string[] = [];
  for (let i = 0; i < cps.length; i += 8192) {
    const chunk = cps.slice(i, i + 8192);
    const texts = chunk.map((cp) => `a${String.fromCodePoint(cp)}b`);
    const encoded = await rust.encodeBatch(texts, { addSpecialTokens: false });
    texts.forEach((text, k) => {
      const mine = ours.segment(text, (s) => s).tokens.join(' ');
      const theirs = encoded[k]!.getTokens().join(' ');
      if (mine !== theirs)
        differing.push(`U+${chunk[k]!.toString(16)}: ours "${mine}" rust "${theirs}"`);
    });
  }
  expect(cps.length).toBeGreaterThan(260_000);
  expect(differing).toEqual([]);
});
