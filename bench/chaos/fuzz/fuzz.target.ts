import type fc from 'fast-check';

/** What one fuzzed request got back, classified. */
export interface Verdict {
  /** e.g. `200`, `400 INVALID_JSON`, `grpc INVALID_ARGUMENT`: the tally key. */
  outcome: string;
  /** Set when the answer breaks the API's contract (5xx, crash, hang, undocumented shape). */
  problem?: string;
}

/** One API under fuzz: how to generate its inputs and how to send and judge one. */
export interface FuzzTarget<C> {
  api: string;
  cases: fc.Arbitrary<C>;
  send(input: C): Promise<Verdict>;
  /** A short, printable description of an input, for the report of a failing case. */
  describe(input: C): string;
}

/** Type-erased target, so targets of different input types fit one list. */
export type AnyFuzzTarget = FuzzTarget<unknown>;

export function erase<C>(t: FuzzTarget<C>): AnyFuzzTarget {
  return t;
}

/** Parses JSON, or undefined when it is not JSON. */
export function jsonOf(body: Buffer | string): unknown {
  try {
    return JSON.parse(body.toString()) as unknown;
  } catch {
    return undefined;
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** At most `max` characters of a JSON rendering (Buffers as base64). */
export function preview(value: unknown, max = 300): string {
  const s =
    value instanceof Buffer
      ? `base64:${value.toString('base64')}`
      : (JSON.stringify(value, (_k, v: unknown) =>
          typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `<${v.length} bytes>` : v,
        ) ?? String(value));
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
