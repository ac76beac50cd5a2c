import { fieldPath } from '@mesh/errors';
import type { FastifyInstance } from 'fastify';
import { RequestValidationError } from '../errors/router.errors';

/** Keys that could reach an object's prototype if a body were ever merged into another object. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
/** Cheap pre-test: only bodies that might spell a reserved key (or escape one) are walked. */
const SUSPECT = /__proto__|constructor|prototype|\\u/;

/**
 * The router's only body parser: `application/json` (any parameters). Without Nest's
 * urlencoded parser a body of any other (or no) content type is 415, never half-parsed.
 * Malformed JSON is INVALID_JSON; a reserved key such as `__proto__` is valid JSON, so it is
 * INVALID_ARGUMENT naming the key, not "not valid JSON".
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  // Fastify's built-in text/plain parser would hand a JSON route a string, refused later as a
  // schema error (after auth) instead of the 415 any other media type gets.
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body as string);
    } catch (err: unknown) {
      done(Object.assign(err as Error, { statusCode: 400 }), undefined);
      return;
    }
    const reserved = SUSPECT.test(body as string) ? reservedKeyPath(parsed, []) : undefined;
    if (reserved !== undefined) {
      done(new RequestValidationError([{ path: reserved, message: 'is a reserved key' }]));
      return;
    }
    done(null, parsed);
  });
}

/** Path of the first reserved own key anywhere in a parsed JSON value. */
function reservedKeyPath(value: unknown, path: (string | number)[]): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = reservedKeyPath(value[i], [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (RESERVED.has(key)) return fieldPath([...path, key]);
    const found = reservedKeyPath((value as Record<string, unknown>)[key], [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
