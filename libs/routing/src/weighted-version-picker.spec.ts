import { NoRoutableVersionError } from './routing.errors';
import type { Route } from './routing.types';
import { stickyFraction } from './sticky-hash';
import { WeightedVersionPicker } from './weighted-version-picker';

function route(weights: Record<number, number>, over: Partial<Route> = {}): Route {
  return {
    tenant: '*',
    task: 'question-type',
    model: 'question-type-zh',
    versions: Object.entries(weights).map(([v, weight]) => ({ version: Number(v), weight })),
    ...over,
  };
}

function shares(picks: number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const v of picks) counts.set(v, (counts.get(v) ?? 0) + 1);
  return new Map([...counts].map(([v, n]) => [v, (100 * n) / picks.length]));
}

const keys = Array.from({ length: 2000 }, (_, i) => `request-${i}`);

describe('stickyFraction', () => {
  it('is a fixed function of the key, so every replica agrees (values pinned)', () => {
    expect(stickyFraction('')).toBe(0.6689221884589642);
    expect(stickyFraction('user-1')).toBe(0.4670340372249484);
    expect(stickyFraction('用户')).toBe(0.021546829491853714);
  });

  it('spreads sequential keys evenly over [0, 1)', () => {
    const buckets = new Array<number>(10).fill(0);
    for (const k of keys) buckets[Math.floor(stickyFraction(k) * 10)]! += 1;
    for (const n of buckets) expect(Math.abs(n - 200)).toBeLessThan(45);
  });
});

describe('WeightedVersionPicker', () => {
  const picker = new WeightedVersionPicker();

  it.each([[{ 1: 90, 2: 10 }], [{ 1: 50, 2: 30, 3: 20 }], [{ 4: 1, 5: 1 }]])(
    'splits 2,000 sticky picks within ±2 pp of weights %j',
    (weights) => {
      const r = route(weights);
      const got = shares(keys.map((stickyKey) => picker.pick(r, { stickyKey }).version));
      const total = Object.values(weights).reduce((a, b) => a + b, 0);
      for (const [version, weight] of Object.entries(weights)) {
        expect(
          Math.abs((got.get(Number(version)) ?? 0) - (100 * weight) / total),
        ).toBeLessThanOrEqual(2);
      }
    },
  );

  it('splits unkeyed picks by weight using its random source', () => {
    let i = 0;
    const evenly = new WeightedVersionPicker(() => (i++ % 100) / 100);
    const got = shares(
      Array.from({ length: 1000 }, () => evenly.pick(route({ 1: 90, 2: 10 })).version),
    );
    expect(got.get(1)).toBe(90);
    expect(got.get(2)).toBe(10);
  });

  it('gives the same key the same version on every picker instance', () => {
    const r = route({ 1: 50, 2: 50 });
    const other = new WeightedVersionPicker(() => 0);
    const versions = keys.slice(0, 200).map((stickyKey) => picker.pick(r, { stickyKey }).version);
    expect(keys.slice(0, 200).map((stickyKey) => other.pick(r, { stickyKey }).version)).toEqual(
      versions,
    );
    expect(new Set(versions)).toEqual(new Set([1, 2]));
  });

  it('keeps a sticky key on its version when another version gains weight only above it', () => {
    // Cumulative ranges: growing the last version's share only moves keys at the top.
    const before = route({ 1: 90, 2: 10 });
    const after = route({ 1: 90, 2: 30 });
    const stayed = keys.filter((k) => picker.pick(before, { stickyKey: k }).version === 2);
    for (const k of stayed) expect(picker.pick(after, { stickyKey: k }).version).toBe(2);
  });

  it('treats an empty sticky key as no key and draws at random', () => {
    let i = 0;
    const evenly = new WeightedVersionPicker(() => (i++ % 10) / 10);
    const r = route({ 1: 50, 2: 50 });
    const got = new Set(
      Array.from({ length: 10 }, () => evenly.pick(r, { stickyKey: '' }).version),
    );
    expect(got).toEqual(new Set([1, 2]));
  });

  it('never picks a zero-weight version', () => {
    const r = route({ 1: 0, 2: 1 });
    expect(new Set(keys.map((k) => picker.pick(r, { stickyKey: k }).version))).toEqual(
      new Set([2]),
    );
  });

  it('routes around versions the caller marks unroutable', () => {
    const r = route({ 1: 90, 2: 10 });
    const seen = keys.map(
      (stickyKey) =>
        picker.pick(r, {
          stickyKey,
          unroutableReason: (_m, v) => (v === 1 ? 'no READY backend' : undefined),
        }).version,
    );
    expect(new Set(seen)).toEqual(new Set([2]));
  });

  describe('versions that refuse the request', () => {
    const pairRefused = new Error('v1 takes single texts only');
    const refusesV1 = (_m: string, v: number) => (v === 1 ? pairRefused : undefined);

    it('renormalises the weights over the versions that can serve it', () => {
      const r = route({ 1: 60, 2: 30, 3: 10 });
      const got = shares(
        keys.map((stickyKey) => picker.pick(r, { stickyKey, refuses: refusesV1 }).version),
      );
      expect(got.get(1)).toBeUndefined();
      // 30:10 over versions 2 and 3 → 75 % / 25 %.
      expect(Math.abs((got.get(2) ?? 0) - 75)).toBeLessThanOrEqual(2);
      expect(Math.abs((got.get(3) ?? 0) - 25)).toBeLessThanOrEqual(2);
    });

    it('throws the refusal (a client error) only when every routable version refuses', () => {
      expect(() => picker.pick(route({ 1: 90 }), { refuses: refusesV1 })).toThrow(pairRefused);
      // v2 is unroutable, so only v1 could serve: its refusal, not BACKEND_UNAVAILABLE.
      expect(() =>
        picker.pick(route({ 1: 90, 2: 10 }), {
          refuses: refusesV1,
          unroutableReason: (_m, v) => (v === 2 ? 'no READY backend' : undefined),
        }),
      ).toThrow(pairRefused);
      // Nothing routable at all stays BACKEND_UNAVAILABLE whatever the request.
      expect(() =>
        picker.pick(route({ 1: 90 }), { refuses: refusesV1, unroutableReason: () => 'down' }),
      ).toThrow(NoRoutableVersionError);
    });

    it('skips a shadow that cannot serve the request', () => {
      const r = route({ 2: 1 }, { shadow: { version: 1 } });
      expect(picker.pickShadow(r, { refuses: refusesV1 })).toBeUndefined();
      expect(picker.pickShadow(r)).toEqual({ model: 'question-type-zh', version: 1 });
    });
  });

  it('throws BACKEND_UNAVAILABLE with a reason per version when nothing is routable', () => {
    const r = route({ 1: 90, 2: 10, 3: 0 });
    let error: unknown;
    try {
      picker.pick(r, {
        unroutableReason: (model, v) => `${model} v${v}: tokenizer sha256 differs from manifest`,
      });
    } catch (err: unknown) {
      error = err;
    }
    expect(error).toBeInstanceOf(NoRoutableVersionError);
    const e = error as NoRoutableVersionError;
    expect(e.code).toBe('BACKEND_UNAVAILABLE');
    expect(e.reasons.map((x) => x.version)).toEqual([1, 2]);
    expect(e.message).toContain('question-type-zh v2: tokenizer sha256 differs from manifest');
  });

  describe('pickShadow', () => {
    it('returns nothing without a shadow and always the shadow at the default 100 %', () => {
      expect(picker.pickShadow(route({ 1: 1 }))).toBeUndefined();
      expect(picker.pickShadow(route({ 1: 1 }, { shadow: { version: 2 } }))).toEqual({
        model: 'question-type-zh',
        version: 2,
      });
    });

    it('samples about `percent` of sticky keys, deterministically', () => {
      const r = route({ 1: 1 }, { shadow: { version: 2, percent: 20 } });
      const picked = keys.filter((stickyKey) => picker.pickShadow(r, { stickyKey }) !== undefined);
      expect(Math.abs((100 * picked.length) / keys.length - 20)).toBeLessThanOrEqual(2);
      expect(keys.filter((stickyKey) => picker.pickShadow(r, { stickyKey }) !== undefined)).toEqual(
        picked,
      );
    });

    it('skips an unroutable shadow instead of failing the request', () => {
      const r = route({ 1: 1 }, { shadow: { version: 2 } });
      expect(picker.pickShadow(r, { unroutableReason: () => 'not loaded' })).toBeUndefined();
    });
  });
});
