/** mulberry32: small, fast, deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type TextMix = 'short' | 'long' | 'mixed';

/** One pre-tokenized request: token ids of one text ([CLS] ... [SEP]). */
export type TokenRow = number[];

/**
 * A seeded corpus of pre-tokenized rows: `short` ≈ 16–32 tokens, `long` ≈ 128–256, `mixed`
 * 80 % short / 20 % long, as BENCHMARKS.md defines the text mixes.
 */
export function buildCorpus(mix: TextMix, count: number, seed: number): TokenRow[] {
  const r = seededRandom(seed);
  const len = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  return Array.from({ length: count }, () => {
    const isLong = mix === 'long' || (mix === 'mixed' && r() < 0.2);
    const n = isLong ? len(128, 256) : len(16, 32);
    return Array.from({ length: n }, (_, i) =>
      i === 0 ? 2 : i === n - 1 ? 3 : 100 + Math.floor(r() * 20_000),
    );
  });
}

/** Counts per bucket of `width` tokens, e.g. "16-31: 812". */
export function lengthHistogram(rows: readonly TokenRow[], width = 16): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) {
    const lo = Math.floor(row.length / width) * width;
    const key = `${lo}-${lo + width - 1}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => parseInt(a[0]) - parseInt(b[0])));
}

/** The three BERT inputs of a batch of rows, padded to the longest (mask 0 on padding). */
export function bertInputs(rows: readonly TokenRow[]): {
  shape: [number, number];
  ids: BigInt64Array;
  mask: BigInt64Array;
  types: BigInt64Array;
} {
  const width = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * width);
  const mask = new BigInt64Array(rows.length * width);
  rows.forEach((row, b) =>
    row.forEach((id, i) => {
      ids[b * width + i] = BigInt(id);
      mask[b * width + i] = 1n;
    }),
  );
  return { shape: [rows.length, width], ids, mask, types: new BigInt64Array(rows.length * width) };
}
