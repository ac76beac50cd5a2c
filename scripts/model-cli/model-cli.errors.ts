import { MeshError } from '@mesh/errors';

export type ModelCliErrorCode =
  /** Bad or missing command-line arguments (exit 2). */
  | 'USAGE'
  /** An input file is missing or unreadable. */
  | 'INPUT_UNREADABLE'
  /** The version directory exists and --force was not given. */
  | 'VERSION_EXISTS'
  /** The model's repository entry cannot be read (broken config, labels). */
  | 'MODEL_UNREADABLE'
  /** The exported model cannot be served as given (signature, labels, existing model). */
  | 'MODEL_REFUSED'
  /** The written version failed validation (tokenizer, ORT load, signature, probes). */
  | 'VALIDATION_FAILED';

/** A refusal of `mesh model ...`: the message says what is wrong and what to do. */
export class ModelCliError extends MeshError {
  constructor(
    readonly code: ModelCliErrorCode,
    message: string,
  ) {
    super(message);
  }

  get exitCode(): number {
    return this.code === 'USAGE' ? 2 : 1;
  }
}
