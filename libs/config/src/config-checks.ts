import type { ConfigIssue } from './config.errors';

type Values = Readonly<Record<string, unknown>>;
const isSet = (v: unknown): boolean => v !== undefined && v !== '';

/** `dependent` only means something with every one of `required` set (e.g. a key and its cert). */
export function requiredWith(
  config: Values,
  dependent: string,
  required: readonly string[],
): ConfigIssue[] {
  if (!isSet(config[dependent])) return [];
  const missing = required.filter((r) => !isSet(config[r]));
  return missing.length === 0
    ? []
    : [{ variable: dependent, reason: `is set, so ${missing.join(' and ')} must be set too` }];
}

/** Both or neither: a certificate and its private key. */
export function setTogether(config: Values, a: string, b: string): ConfigIssue[] {
  return [...requiredWith(config, a, [b]), ...requiredWith(config, b, [a])];
}
