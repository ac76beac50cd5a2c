const isAsciiSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
const isAsciiPunct = (c: number): boolean =>
  (c >= 0x21 && c <= 0x2f) ||
  (c >= 0x3a && c <= 0x40) ||
  (c >= 0x5b && c <= 0x60) ||
  (c >= 0x7b && c <= 0x7e);
const isCjkIdeograph = (c: number): boolean => c >= 0x4e00 && c <= 0x9fff;

/**
 * Whether `text` can be split before index `cut` so that the tokens of text[0, cut) are
 * exactly the first tokens of the whole text. True when:
 * - the previous character is ASCII whitespace (a word ends; nothing composes with it);
 * - both neighbours are ASCII and one is punctuation (BERT makes punctuation its own word;
 *   ASCII never composes under NFKC and normalises per character);
 * - both neighbours are CJK ideographs U+4E00–U+9FFF (each its own word after BERT's Chinese
 *   handling, NFKC-stable).
 * and the two characters are not adjacent inside an added token such as "[SEP]"
 * (`addedBigrams`, lowercase). No such cut splits a surrogate pair. A text without any safe cut
 * (one 1 MB "word") is tokenized whole.
 */
function isSafeCut(text: string, cut: number, addedBigrams: ReadonlySet<string>): boolean {
  const prev = text.charCodeAt(cut - 1);
  const cur = text.charCodeAt(cut);
  if (addedBigrams.size > 0 && addedBigrams.has(text.slice(cut - 1, cut + 1).toLowerCase()))
    return false;
  if (isAsciiSpace(prev)) return true;
  if (cur < 0x80 && prev < 0x80 && (isAsciiPunct(prev) || isAsciiPunct(cur))) return true;
  return isCjkIdeograph(prev) && isCjkIdeograph(cur);
}

/**
 * The largest safe cut in (cap/2, cap] (see isSafeCut), or -1 when there is none and the
 * caller has to look further.
 */
export function findSafeCut(text: string, cap: number, addedBigrams: ReadonlySet<string>): number {
  const floor = Math.floor(cap / 2);
  for (let cut = Math.min(cap, text.length - 1); cut > floor; cut--) {
    if (isSafeCut(text, cut, addedBigrams)) return cut;
  }
  return -1;
}

/** Adjacent character pairs inside added tokens (lowercased): a cut between them is unsafe. */
export function addedTokenBigrams(contents: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const c of contents) {
    const lower = c.toLowerCase();
    for (let i = 1; i < lower.length; i++) out.add(lower.slice(i - 1, i + 1));
  }
  return out;
}
