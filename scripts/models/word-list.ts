import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandEnglishSeed } from './english-words';

/**
 * The demo vocabulary: one token per line, line number = token id.
 *
 * Special tokens take ids 0..4 ([PAD]=0 as in BERT, so zero-filled padding is
 * [PAD]; unlike bert-base-uncased, which puts [UNK]/[CLS]/[SEP]/[MASK] at
 * 100..103, they follow directly). Then printable ASCII, Chinese and full-width
 * punctuation, the CJK Unified Ideographs U+4E00–U+9FA5, English words, and
 * `##` continuation pieces (every letter and digit among them, so any ASCII
 * word tokenizes without [UNK]).
 */

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

export const SPECIAL_TOKEN_IDS: Readonly<Record<SpecialToken, number>> = {
  '[PAD]': 0,
  '[UNK]': 1,
  '[CLS]': 2,
  '[SEP]': 3,
  '[MASK]': 4,
};

export const CJK_FIRST = 0x4e00;
export const CJK_LAST = 0x9fa5;

const CHINESE_PUNCTUATION =
  '、。〃〇〈〉《》「」『』【】〔〕〖〗〘〙〜〝〞・‘’“”…‥—–·￥￠￡℃°×÷※§№☆★○●◎◇◆□■△▲→←↑↓';

function codePointRange(first: number, last: number): string[] {
  const out: string[] = [];
  for (let cp = first; cp <= last; cp += 1) out.push(String.fromCodePoint(cp));
  return out;
}

/** Full-width forms U+FF01–U+FF5E (，！？：；（）０-９ａ-ｚ ...) as used in Chinese text. */
function fullWidthForms(): string[] {
  return codePointRange(0xff01, 0xff5e);
}

function uniqueInOrder(tokens: Iterable<string>): string[] {
  return [...new Set(tokens)];
}

/** Builds the whole vocabulary from the English seed text; deterministic. */
export function buildWordList(englishSeed: string): string[] {
  const english = expandEnglishSeed(englishSeed);
  return uniqueInOrder([
    ...SPECIAL_TOKENS,
    ...codePointRange(0x21, 0x7e),
    ...Array.from(CHINESE_PUNCTUATION),
    ...fullWidthForms(),
    ...codePointRange(CJK_FIRST, CJK_LAST),
    ...english.words,
    ...english.pieces.map((p) => `##${p}`),
  ]);
}

export function formatWordList(tokens: readonly string[]): string {
  return `${tokens.join('\n')}\n`;
}

/**
 * Parses the committed word list and checks what the tokenizer relies on:
 * the special tokens at their ids, no blanks, whitespace or duplicates.
 */
export function parseWordList(text: string): string[] {
  if (!text.endsWith('\n')) throw new Error('word list: must end with a newline');
  const tokens = text.slice(0, -1).split('\n');
  const seen = new Set<string>();
  tokens.forEach((token, id) => {
    if (token === '' || /\s/u.test(token))
      throw new Error(`word list: line ${id + 1} is blank or has whitespace`);
    if (seen.has(token)) throw new Error(`word list: duplicate token "${token}" on line ${id + 1}`);
    seen.add(token);
  });
  SPECIAL_TOKENS.forEach((token) => {
    if (tokens[SPECIAL_TOKEN_IDS[token]] !== token) {
      throw new Error(`word list: ${token} must be on line ${SPECIAL_TOKEN_IDS[token] + 1}`);
    }
  });
  return tokens;
}

/** The committed word list that every generated tokenizer.json is built from. */
export const WORD_LIST_PATH = join(__dirname, '..', 'data', 'vocab-words.txt');

export function readWordListFile(path: string = WORD_LIST_PATH): string[] {
  return parseWordList(readFileSync(path, 'utf8'));
}
