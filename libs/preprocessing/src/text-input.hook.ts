import { codePointLength, exceedsChars } from './input-capability';
import { InputTooLargeError, InputValidationError } from './preprocessing.errors';

// String.prototype.{is,to}WellFormed are in Node 20 but not in the ES2023 lib typings.
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const toWellFormed = (s: string): string => {
  const w = s as unknown as WellFormed;
  return w.isWellFormed() ? s : w.toWellFormed();
};

/**
 * Checks one user text before tokenization. Length is counted in characters (Unicode code
 * points, so an emoji is one) against `hardMaxChars`. Lone surrogates are replaced by
 * U+FFFD, which BERT normalisation then drops, so invalid UTF-16 encodes deterministically
 * (the Rust binding does the same replacement when the string crosses into UTF-8).
 */
export class TextInputGuard {
  constructor(private readonly hardMaxChars: number) {}

  text(value: unknown, field: 'text' | 'textPair', index: number): string {
    if (typeof value !== 'string') {
      this.fail(
        `${field} at index ${index} must be a string, got ${value === null ? 'null' : typeof value}`,
      );
    }
    if (exceedsChars(value, this.hardMaxChars)) {
      throw new InputTooLargeError(field, index, codePointLength(value), this.hardMaxChars);
    }
    return toWellFormed(value);
  }

  fail(reason: string): never {
    throw new InputValidationError(reason);
  }
}
