import { MeshError } from '@mesh/errors';

/** Why a model version's preprocessing cannot be used with this build. */
export type PreprocessingMismatchCode =
  | 'UNKNOWN_PIPELINE'
  | 'PIPELINE_OPTION_MISMATCH'
  | 'TOKENIZER_MISSING'
  | 'TOKENIZER_SHA_MISMATCH'
  | 'TOKENIZER_INVALID'
  | 'INPUT_NAME_MISMATCH'
  | 'OUTPUT_NAME_MISMATCH';

/**
 * Loading a model version found that its manifest, tokenizer file or model config do not
 * agree with each other or with this build. The version must not be routed to; the message
 * names the model, the version and what differs.
 */
export class PreprocessingMismatchError extends MeshError {
  constructor(
    readonly code: PreprocessingMismatchCode,
    readonly model: string,
    readonly version: string,
    readonly detail: string,
  ) {
    super(`model ${model} version ${version} is unroutable: ${detail} [${code}]`);
  }
}

/**
 * A text is longer than the manifest's `hardMaxChars` (the router maps this to HTTP 413). The
 * message names the text as the request does (`text`, `texts[3]`); a single text has no index.
 */
export class InputTooLargeError extends MeshError {
  readonly code = 'TEXT_TOO_LONG';
  readonly index?: number;

  constructor(
    readonly field: 'text' | 'textPair',
    index: number | undefined,
    readonly length: number,
    readonly limit: number,
    name = index === undefined ? field : `${field} at index ${index}`,
  ) {
    super(`${name} has ${length} characters; the limit is ${limit}`);
    if (index !== undefined) this.index = index;
  }
}

/** Input that is not text at all, or an unusable batch (the router maps this to HTTP 400). */
export class InputValidationError extends MeshError {
  readonly code = 'INVALID_INPUT';

  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Model outputs whose size does not fit the declared shape (a backend or config defect). */
export class OutputShapeError extends MeshError {
  readonly code = 'OUTPUT_SHAPE_MISMATCH';

  constructor(readonly reason: string) {
    super(reason);
  }
}
