import { stableJson } from './stable-json';

describe('stableJson', () => {
  it('matches JSON.stringify(v, null, 2) for plain values', () => {
    const value = { a: 1, b: [true, null, 'x', { c: [] }], d: {}, e: 'ü"\\', f: -0.5 };
    expect(stableJson(value)).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });

  it('keeps Map insertion order, including integer-like keys', () => {
    const vocab = new Map([
      ['[PAD]', 0],
      ['7', 1],
      ['a', 2],
      ['0', 3],
    ]);
    expect(stableJson({ vocab })).toBe(
      '{\n  "vocab": {\n    "[PAD]": 0,\n    "7": 1,\n    "a": 2,\n    "0": 3\n  }\n}\n',
    );
  });

  it('refuses non-finite numbers', () => {
    expect(() => stableJson({ x: Number.NaN })).toThrow(/not JSON/);
  });
});
