import { InputTooLargeError, InputValidationError } from './preprocessing.errors';
import type { TextInput } from './preprocessing.types';

/** What one model version accepts; the rule below decides whether it can serve an input. */
export interface InputCapabilities {
  readonly model: string;
  readonly version: number;
  /** `pipeline@version`. */
  readonly pipeline: string;
  readonly kind: 'classification' | 'embedding';
  /** The pipeline takes text pairs (and the model is not an embedder). */
  readonly pairs: boolean;
  /** Longest text, in characters (Unicode code points). */
  readonly hardMaxChars: number;
}

/**
 * How a request names its texts in errors: one text by its field (`text`, `textPair`), a
 * batch by position (`texts[3]`), a bulk job's items by index as their result lines carry it
 * (`text at index 7`).
 */
export type InputNaming = 'single' | 'batch' | 'job';

export function inputName(naming: InputNaming, field: 'text' | 'textPair', index: number): string {
  switch (naming) {
    case 'single':
      return field;
    case 'batch':
      return `${field}s[${index}]`;
    case 'job':
      return `${field} at index ${index}`;
  }
}

/**
 * At least one character that is not whitespace (`\s` is the Unicode whitespace `trim()`
 * removes, U+3000 included). An empty or whitespace-only text carries nothing to predict on
 * (it would encode to `[CLS] [SEP]` and get a confident-looking answer), so every entry point
 * refuses it: the router's edges with INVALID_ARGUMENT, a bulk job as that item's error.
 */
export const NON_BLANK_TEXT = /\S/;

/** The message of a blank text, after the field's name (`texts[3]: must not be empty`). */
export const BLANK_TEXT_MESSAGE = 'must not be empty';

export function isBlankText(text: string): boolean {
  return !NON_BLANK_TEXT.test(text);
}

/**
 * Length in characters as the docs count them: Unicode code points, so an emoji (a UTF-16
 * surrogate pair) is one character. Lone surrogates count one each.
 */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** True when `s` has more than `limit` code points; O(1) for the common short text. */
export function exceedsChars(s: string, limit: number): boolean {
  return s.length > limit && codePointLength(s) > limit;
}

/**
 * The error serving `inputs` with this version would raise before any tokenizer work, or
 * undefined when it can serve them all; `naming` says how the request names its texts. Routing
 * uses it to choose only among versions that can serve a request (a canary must not change
 * which inputs are accepted); a bulk job is pinned by its pair part (`pairCapabilityError`),
 * since an over-long item there becomes that item's error instead of refusing the job. One rule
 * everywhere, so the answers cannot disagree.
 */
export function inputCapabilityError(
  caps: InputCapabilities,
  inputs: readonly TextInput[],
  naming: InputNaming,
): InputValidationError | InputTooLargeError | undefined {
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index]!;
    if (input.textPair !== undefined) {
      const refused = pairCapabilityError(caps, inputName(naming, 'textPair', index));
      if (refused) return refused;
    }
    for (const field of ['text', 'textPair'] as const) {
      const value = input[field];
      if (value !== undefined && exceedsChars(value, caps.hardMaxChars)) {
        return new InputTooLargeError(
          field,
          naming === 'single' ? undefined : index,
          codePointLength(value),
          caps.hardMaxChars,
          inputName(naming, field, index),
        );
      }
    }
  }
  return undefined;
}

/**
 * Why this version cannot take the text pair named `name` (a pipeline for single texts, or an
 * embedder), or undefined when it can.
 */
export function pairCapabilityError(
  caps: InputCapabilities,
  name: string,
): InputValidationError | undefined {
  if (caps.pairs) return undefined;
  return new InputValidationError(
    caps.kind === 'embedding'
      ? `${name}: model '${caps.model}' v${caps.version} is an embedding model and takes no textPair`
      : `${name}: model '${caps.model}' v${caps.version} (${caps.pipeline}) takes single texts only`,
  );
}
