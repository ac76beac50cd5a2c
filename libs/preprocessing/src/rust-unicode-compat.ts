/**
 * Code points where the Unicode tables behind Node 20's RegExp/normalize (Unicode 15.1) and
 * those compiled into Hugging Face tokenizers 0.23 (Rust) classify a character differently for
 * BERT normalisation and pre-tokenization. Found by tokenizing "a<c>b" for every code point
 * with both implementations (658 of the 1,112,064 differ; unicode-scan.int-spec.ts keeps it at 0).
 */

/** Rust: an ordinary word character (so its word becomes [UNK]); JS: a mark it strips, or punctuation. */
const RUST_WORD_CHARS: readonly (readonly [number, number])[] = [
  [0x61d, 0x61d],
  [0x7fd, 0x7fd],
  [0x890, 0x891],
  [0x897, 0x89f],
  [0x8ca, 0x8e2],
  [0x9fd, 0x9fe],
  [0xa76, 0xa76],
  [0xafa, 0xaff],
  [0xb55, 0xb55],
  [0xc04, 0xc04],
  [0xc3c, 0xc3c],
  [0xc77, 0xc77],
  [0xc84, 0xc84],
  [0xd00, 0xd00],
  [0xd3b, 0xd3c],
  [0xd81, 0xd81],
  [0xeba, 0xeba],
  [0xece, 0xece],
  [0x180f, 0x180f],
  [0x1885, 0x1886],
  [0x1abf, 0x1add],
  [0x1ae0, 0x1aeb],
  [0x1b4e, 0x1b4f],
  [0x1b7d, 0x1b7f],
  [0x1df6, 0x1dfb],
  [0x2e43, 0x2e4f],
  [0x2e52, 0x2e5d],
  [0xa82c, 0xa82c],
  [0xa8c5, 0xa8c5],
  [0xa8ff, 0xa8ff],
  [0xa9bd, 0xa9bd],
  [0x10d24, 0x10d27],
  [0x10d69, 0x10d6e],
  [0x10eab, 0x10ead],
  [0x10ed0, 0x10ed0],
  [0x10efa, 0x10eff],
  [0x10f46, 0x10f50],
  [0x10f55, 0x10f59],
  [0x10f82, 0x10f89],
  [0x11070, 0x11070],
  [0x11073, 0x11074],
  [0x110c2, 0x110c2],
  [0x110cd, 0x110cd],
  [0x111cf, 0x111cf],
  [0x1123e, 0x1123e],
  [0x11241, 0x11241],
  [0x1133b, 0x1133b],
  [0x113bb, 0x113c0],
  [0x113ce, 0x113ce],
  [0x113d0, 0x113d0],
  [0x113d2, 0x113d2],
  [0x113d4, 0x113d5],
  [0x113d7, 0x113d8],
  [0x113e1, 0x113e2],
  [0x11438, 0x1143f],
  [0x11442, 0x11444],
  [0x11446, 0x11446],
  [0x1144b, 0x1144f],
  [0x1145a, 0x1145b],
  [0x1145d, 0x1145e],
  [0x11660, 0x1166c],
  [0x116b9, 0x116b9],
  [0x1182f, 0x11837],
  [0x11839, 0x1183b],
  [0x1193b, 0x1193c],
  [0x1193e, 0x1193e],
  [0x11943, 0x11946],
  [0x119d4, 0x119d7],
  [0x119da, 0x119db],
  [0x119e0, 0x119e0],
  [0x119e2, 0x119e2],
  [0x11a01, 0x11a0a],
  [0x11a33, 0x11a38],
  [0x11a3b, 0x11a47],
  [0x11a51, 0x11a56],
  [0x11a59, 0x11a5b],
  [0x11a8a, 0x11a96],
  [0x11a98, 0x11a9c],
  [0x11a9e, 0x11aa2],
  [0x11b00, 0x11b09],
  [0x11b60, 0x11b60],
  [0x11b62, 0x11b64],
  [0x11b66, 0x11b66],
  [0x11be1, 0x11be1],
  [0x11c30, 0x11c36],
  [0x11c38, 0x11c3d],
  [0x11c3f, 0x11c3f],
  [0x11c41, 0x11c45],
  [0x11c70, 0x11c71],
  [0x11c92, 0x11ca7],
  [0x11caa, 0x11cb0],
  [0x11cb2, 0x11cb3],
  [0x11cb5, 0x11cb6],
  [0x11d31, 0x11d36],
  [0x11d3a, 0x11d3a],
  [0x11d3c, 0x11d3d],
  [0x11d3f, 0x11d45],
  [0x11d47, 0x11d47],
  [0x11d90, 0x11d91],
  [0x11d95, 0x11d95],
  [0x11d97, 0x11d97],
  [0x11ef3, 0x11ef4],
  [0x11ef7, 0x11ef8],
  [0x11f00, 0x11f01],
  [0x11f36, 0x11f3a],
  [0x11f40, 0x11f40],
  [0x11f42, 0x11f4f],
  [0x11f5a, 0x11f5a],
  [0x11fff, 0x11fff],
  [0x12ff1, 0x12ff2],
  [0x13430, 0x13440],
  [0x13447, 0x13455],
  [0x1611e, 0x16129],
  [0x1612d, 0x1612f],
  [0x16d6d, 0x16d6f],
  [0x16e97, 0x16e9a],
  [0x16f4f, 0x16f4f],
  [0x16fe2, 0x16fe2],
  [0x16fe4, 0x16fe4],
  [0x1cf00, 0x1cf2d],
  [0x1cf30, 0x1cf46],
  [0x1e000, 0x1e006],
  [0x1e008, 0x1e018],
  [0x1e01b, 0x1e021],
  [0x1e023, 0x1e024],
  [0x1e026, 0x1e02a],
  [0x1e08f, 0x1e08f],
  [0x1e130, 0x1e136],
  [0x1e2ae, 0x1e2ae],
  [0x1e2ec, 0x1e2ef],
  [0x1e4ec, 0x1e4ef],
  [0x1e5ee, 0x1e5ef],
  [0x1e5ff, 0x1e5ff],
  [0x1e6e3, 0x1e6e3],
  [0x1e6e6, 0x1e6e6],
  [0x1e6ee, 0x1e6ef],
  [0x1e6f5, 0x1e6f5],
  [0x1e944, 0x1e94a],
  [0x1e95e, 0x1e95f],
];
/** Rust: a combining mark that accent stripping removes; JS: a letter. */
const RUST_STRIPPED = [0x1734, 0x1171e];
/** Rust: punctuation (its own token); JS: a letter or a stripped mark. */
const RUST_PUNCTUATION = [0x166d, 0x111c9];

// Stand-ins JS classifies the way Rust classifies the originals: U+0378 is unassigned
// (kept, part of a word, outside every vocabulary); the punctuation stand-in is picked at
// load from characters both implementations call punctuation and the vocabulary lacks.
const WORD_STAND_IN = '\u0378';
const PUNCTUATION_STAND_INS = [
  '\u00a7',
  '\u00b6',
  '\u00a1',
  '\u00bf',
  '\u2030',
  '\u203b',
  '\u2016',
];

const cls = (cps: readonly number[]): string => cps.map((cp) => `\\u{${cp.toString(16)}}`).join('');

/**
 * Rewrites those code points, before the JS tokenizer sees the text, into characters it treats
 * the way the Rust tokenizer treats the originals. Characters in the vocabulary are left alone
 * (both implementations would then look them up instead).
 */
export class RustUnicodeCompat {
  private readonly pattern: RegExp | undefined;
  private readonly replacement = new Map<string, string>();
  /** UTF-16 units that may start a rewritten character: a fast scan before any RegExp. */
  private readonly startUnits = new Uint8Array(0x10000);

  constructor(inVocab: (token: string) => boolean) {
    const punct = PUNCTUATION_STAND_INS.find((c) => !inVocab(c));
    const word = inVocab(WORD_STAND_IN) ? undefined : WORD_STAND_IN;
    const add = (cp: number, to: string | undefined): void => {
      const ch = String.fromCodePoint(cp);
      if (to !== undefined && !inVocab(ch) && !inVocab(`##${ch}`)) this.replacement.set(ch, to);
    };
    for (const [lo, hi] of RUST_WORD_CHARS) for (let cp = lo; cp <= hi; cp++) add(cp, word);
    RUST_STRIPPED.forEach((cp) => add(cp, ''));
    RUST_PUNCTUATION.forEach((cp) => add(cp, punct));
    const cps = [...this.replacement.keys()].map((c) => c.codePointAt(0)!);
    for (const c of this.replacement.keys()) this.startUnits[c.charCodeAt(0)] = 1;
    this.pattern = cps.length > 0 ? new RegExp(`[${cls(cps)}]`, 'gu') : undefined;
  }

  apply(text: string): string {
    if (!this.pattern || !this.mayMatch(text)) return text;
    return text.replace(this.pattern, (ch) => this.replacement.get(ch) ?? ch);
  }

  private mayMatch(text: string): boolean {
    const units = this.startUnits;
    for (let i = 0; i < text.length; i++) if (units[text.charCodeAt(i)] === 1) return true;
    return false;
  }
}
