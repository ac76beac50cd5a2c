/** mulberry32: small, fast, deterministic. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fixed, seeded set of texts of roughly `targetTokens` tokens each. */
export interface BenchCorpus {
  name: 'short' | 'long';
  targetTokens: number;
  texts: string[];
}

/**
 * Mixed Chinese/English texts built from the tokenizer's own vocabulary (whole English words
 * and CJK characters), so their token counts are predictable: one token per word or character,
 * plus a little punctuation.
 */
export function buildBenchCorpus(
  vocab: readonly string[],
  name: BenchCorpus['name'],
  targetTokens: number,
  count: number,
  seed: number,
): BenchCorpus {
  const r = seededRandom(seed);
  const english = vocab.filter((t) => /^[a-z]{3,}$/.test(t));
  const chinese = vocab.filter((t) => /^[\u4e00-\u9fa5]$/.test(t));
  const pick = (xs: readonly string[]): string => xs[Math.floor(r() * xs.length)]!;
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    // Content tokens = targetTokens minus [CLS]/[SEP], +-20 %.
    const n = Math.round((targetTokens - 2) * (0.8 + 0.4 * r()));
    for (let k = 0; k < n; k++) {
      const roll = r();
      if (roll < 0.45) parts.push(` ${pick(english)} `);
      else if (roll < 0.93) parts.push(pick(chinese));
      else parts.push(pick(['，', '。', '！', '?', ',', '.']));
    }
    texts.push(parts.join('').replace(/\s+/g, ' ').trim());
  }
  return { name, targetTokens, texts };
}

/** Counts per bucket of `width` tokens, e.g. "16-23: 812". */
export function histogram(lengths: readonly number[], width: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const len of lengths) {
    const lo = Math.floor(len / width) * width;
    const key = `${lo}-${lo + width - 1}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => parseInt(a[0]) - parseInt(b[0])));
}
