import { createHash } from 'node:crypto';

/** Longest accepted key; bounds the hashing work an unauthenticated caller can cause. */
const MAX_KEY_LENGTH = 512;
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/** sha256 of an API key as lower-case hex: the only form in which keys are stored. */
export function sha256Hex(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function sha256Bytes(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The key of an `Authorization: Bearer <key>` value (HTTP header or gRPC metadata),
 * or undefined when absent or malformed.
 */
export function bearerKey(header: string | readonly string[] | undefined): string | undefined {
  if (typeof header !== 'string' || header.length > MAX_KEY_LENGTH + 16) return undefined;
  const match = BEARER.exec(header);
  const key = match?.[1];
  return key !== undefined && key.length <= MAX_KEY_LENGTH ? key : undefined;
}
