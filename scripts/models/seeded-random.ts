/**
 * Deterministic pseudo-random numbers for model weights.
 *
 * Only integer ops and IEEE +,-,*,/ are used (no Math.log/cos/exp), because
 * those are exact on every platform, while transcendental functions may differ
 * between engines — and the committed manifests pin the sha256 of the bytes.
 */

// Bound once: a property lookup on the global Math in every iteration is very
// slow where globals are wrapped (Jest's test environment), and this runs
// tens of millions of times per model.
const imul = Math.imul;

/** FNV-1a over the UTF-16 code units of `text`: a stable 32-bit seed for a name. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const TWO_POW_32 = 4294967296;
// Irwin–Hall(4) has variance 4/12; this rescales it to unit variance.
const IRWIN_HALL_4_SCALE = Math.sqrt(3);

/** mulberry32 generator with uniform and approximately normal draws. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static fromText(text: string): SeededRandom {
    return new SeededRandom(hashSeed(text));
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** Approximately N(0, 1): a centred sum of four uniforms, bounded by ±2√3. */
  nextNormalish(): number {
    const sum = this.nextFloat() + this.nextFloat() + this.nextFloat() + this.nextFloat();
    return (sum - 2) * IRWIN_HALL_4_SCALE;
  }

  /** Fills a float32 array with N(mean, std²)-like values. */
  fillNormalish(target: Float32Array, std: number, mean = 0): Float32Array {
    for (let i = 0; i < target.length; i += 1) {
      target[i] = mean + this.nextNormalish() * std;
    }
    return target;
  }
}
