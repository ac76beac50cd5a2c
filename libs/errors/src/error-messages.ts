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

/** `1 problem`, `3 problems`: a count with its noun, for messages that list what they count. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One issue of a document: its field path (empty: the document, `(root)`) and what is wrong. */
export function issueLine(path: string, message: string): string {
  return `${path || '(root)'}: ${message}`;
}

/** Lines as an indented bullet list under a message's head line (`  - …` each, one per line). */
export function bulletList(lines: readonly string[]): string {
  return lines.map((line) => `  - ${line}`).join('\n');
}
