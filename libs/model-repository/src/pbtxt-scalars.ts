import type { TextScalar, TextValue } from './pbtxt.types';

/** Integer widths of protobuf scalar fields, with their ranges. */
export type IntKind = 'int32' | 'uint32' | 'int64' | 'uint64';

const RANGES: Record<IntKind, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  // 64-bit fields become JS numbers, so they stop at the largest exactly representable integer.
  int64: [BigInt(Number.MIN_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER)],
  uint64: [0n, BigInt(Number.MAX_SAFE_INTEGER)],
};

/** How a value appears in an error message: strings quoted, other tokens as written. */
export function describeValue(value: TextValue): string {
  if (value.kind === 'message') return 'a message';
  if (value.kind === 'list') return 'a list';
  return value.type === 'string' ? JSON.stringify(value.text) : `'${value.text}'`;
}

/** Integer literal (decimal, 0x hex, leading-0 octal, optional '-') or undefined if not one. */
export function integerLiteral(scalar: TextScalar): bigint | undefined {
  const jsonString = scalar.type === 'string' && scalar.fromJson === true;
  if (scalar.type !== 'number' && !jsonString) return undefined;
  const negative = scalar.text.startsWith('-');
  const body = negative ? scalar.text.slice(1) : scalar.text;
  let magnitude: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(body)) magnitude = BigInt(body);
  else if (/^0[0-7]+$/.test(body)) magnitude = BigInt(`0o${body.slice(1)}`);
  else if (/^[0-9]+$/.test(body) && !/^0[0-9]/.test(body)) magnitude = BigInt(body);
  else return undefined;
  return negative ? -magnitude : magnitude;
}

export type ScalarResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export function toInteger(scalar: TextScalar, kind: IntKind): ScalarResult<number> {
  const value = integerLiteral(scalar);
  if (value === undefined) return { ok: false, reason: 'an integer' };
  const [min, max] = RANGES[kind];
  if (value < min || value > max) {
    return { ok: false, reason: `an integer in the ${kind} range [${min}, ${max}]` };
  }
  return { ok: true, value: Number(value) };
}

const TRUE = new Set(['true', 'True', 't', '1']);
const FALSE = new Set(['false', 'False', 'f', '0']);

export function toBool(scalar: TextScalar): ScalarResult<boolean> {
  if (scalar.type !== 'string' && TRUE.has(scalar.text)) return { ok: true, value: true };
  if (scalar.type !== 'string' && FALSE.has(scalar.text)) return { ok: true, value: false };
  return { ok: false, reason: 'true or false' };
}

export function toEnum<T extends string>(
  scalar: TextScalar,
  values: Readonly<Record<T, number>>,
  enumName: string,
): ScalarResult<T> {
  const names = Object.keys(values) as T[];
  const named = scalar.type === 'identifier' || (scalar.type === 'string' && scalar.fromJson);
  if (named && (names as string[]).includes(scalar.text)) {
    return { ok: true, value: scalar.text as T };
  }
  const number = integerLiteral(scalar);
  const byNumber = names.find((n) => BigInt(values[n]) === number);
  if (number !== undefined && byNumber !== undefined) return { ok: true, value: byNumber };
  return { ok: false, reason: `a ${enumName} value (one of ${names.join(', ')})` };
}
