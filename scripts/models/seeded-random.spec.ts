import { hashSeed, SeededRandom } from './seeded-random';

describe('hashSeed', () => {
  it('is 32-bit FNV-1a (known vectors)', () => {
    expect(hashSeed('')).toBe(0x811c9dc5);
    expect(hashSeed('a')).toBe(0xe40c292c);
    expect(hashSeed('foobar')).toBe(0xbf9cf968);
  });

  it('separates model versions', () => {
    expect(hashSeed('intent-zh@1')).not.toBe(hashSeed('intent-zh@2'));
  });
});

describe('SeededRandom', () => {
  const draw = (seed: number, n: number): number[] => {
    const rng = new SeededRandom(seed);
    return Array.from({ length: n }, () => rng.nextUint32());
  };

  it('repeats the same sequence for the same seed', () => {
    expect(draw(42, 100)).toEqual(draw(42, 100));
  });

  it('gives a different sequence for a different seed', () => {
    expect(draw(42, 10)).not.toEqual(draw(43, 10));
  });

  it('keeps uniform draws in [0, 1)', () => {
    const rng = new SeededRandom(7);
    for (let i = 0; i < 10000; i += 1) {
      const x = rng.nextFloat();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it('draws approximately standard normal values', () => {
    const values = new SeededRandom(1).fillNormalish(new Float32Array(200000), 1);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
    expect(Math.abs(mean)).toBeLessThan(0.01);
    expect(Math.abs(variance - 1)).toBeLessThan(0.02);
  });

  it('applies mean and std when filling', () => {
    const values = SeededRandom.fromText('x').fillNormalish(new Float32Array(50000), 0.02, 1);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    expect(mean).toBeCloseTo(1, 3);
    expect(Math.max(...values)).toBeLessThanOrEqual(1 + 0.02 * Math.sqrt(3) * 2 + 1e-6);
  });
});
