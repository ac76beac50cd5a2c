import fc from 'fast-check';

/**
 * Building blocks shared by the per-API generators: strings that stress text handling
 * (every Unicode plane, lone surrogates, control characters, very long runs) and "wild"
 * values of the wrong JSON type, so each field is sometimes right and sometimes anything.
 */

/** Texts a tokenizer must survive: ASCII, CJK, emoji, any code point, lone surrogates. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\ud800',
      'a\udfffb',
      '\u202e\u200b\ufeff',
      '😀'.repeat(50),
      '你好，世界',
      'x'.repeat(20_001),
      '\r\n\t',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '字', '😀', ' '), fc.integer({ min: 100, max: 25_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);

/** Numbers at the edges: huge, negative, fractional, non-finite as JSON allows (none). */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e-308, Number.MAX_SAFE_INTEGER + 2),
);

/** A JSON value of any type (what a confused or hostile client puts in a field). */
export const wildValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyText },
  { weight: 2, arbitrary: edgeNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** `good` most of the time, else a wild value, else the field is left out (undefined). */
export function mostly<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: good },
    { weight: 2, arbitrary: wildValue },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Absent (undefined) four times out of five, else `arb`. */
export function rarely<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

/** An object with the given fields (undefined ones dropped) plus, sometimes, junk keys. */
export function objectOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<object> {
  return fc
    .tuple(
      fc.record(fields),
      rarely(fc.dictionary(fc.string({ maxLength: 10 }), wildValue, { maxKeys: 3 })),
    )
    .map(([known, extra]) => {
      const out: Record<string, unknown> = { ...(extra ?? {}) };
      for (const [k, v] of Object.entries(known)) if (v !== undefined) out[k] = v;
      return out;
    });
}

/** JSON text that does not parse: truncated, with junk spliced in, or not JSON at all. */
export const brokenJson: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.nat()).map(([v, cut]) => {
    const s = JSON.stringify(v) ?? 'null';
    return s.slice(0, cut % Math.max(1, s.length));
  }),
  fc.constantFrom('{', '{"task":', '[1,2', '{"a":1}}', 'nul', '{"__proto__":{"x":1}}', '\ufeff{}'),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/** Bytes that are not text at all. */
export const binaryJunk: fc.Arbitrary<Buffer> = fc
  .uint8Array({ maxLength: 200 })
  .map((a) => Buffer.from(a));

/**
 * A request body: the JSON of `valid` (so the success path is fuzzed too), of `validish`, any
 * JSON, broken JSON, or binary junk.
 */
export function bodyOf(
  valid: fc.Arbitrary<object>,
  validish: fc.Arbitrary<object>,
): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 8, arbitrary: valid.map((v) => Buffer.from(JSON.stringify(v))) },
    { weight: 8, arbitrary: validish.map((v) => Buffer.from(JSON.stringify(v))) },
    {
      weight: 2,
      arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? '')),
    },
    { weight: 2, arbitrary: brokenJson.map((s) => Buffer.from(s)) },
    { weight: 1, arbitrary: binaryJunk },
  );
}

/** A header value: usually well-formed, sometimes odd (but never a line break: see below). */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')),
  // Latin-1 bytes above 0x7f are legal header octets that many parsers mishandle.
  fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', 'x'.repeat(5000)),
);
