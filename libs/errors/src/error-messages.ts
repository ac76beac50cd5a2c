/**
 * How every issue names its field, on every edge: object keys joined by dots, positions in
 * brackets (`steps[2].weight`, `texts[3]`), so a schema's issue and a hand-written rule's issue
 * about the same field read the same. The empty path is the document itself.
 */
export function fieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/**
 * A value outside a fixed set, answered with the set so the caller need not look it up:
 * `must be one of pause, resume (got 'foo')`. Long values are cut, so the echo stays short.
 */
export function oneOfMessage(allowed: readonly string[], got: unknown): string {
  const raw =
    typeof got === 'string' ? `'${got}'` : got === undefined ? 'nothing' : JSON.stringify(got);
  const shown = raw === undefined ? typeof got : raw.length > 66 ? `${raw.slice(0, 64)}…` : raw;
  return `must be one of ${allowed.join(', ')} (got ${shown})`;
}
