import { MeshError } from '@mesh/errors';

/**
 * A `config.pbtxt` that cannot be read as a Triton ModelConfig: a syntax error, a value of the
 * wrong type, or a config Triton itself would reject. The message starts with `file:line:column`
 * so editors and logs jump straight to the spot.
 */
export class ModelConfigParseError extends MeshError {
  readonly code = 'MODEL_CONFIG_INVALID';

  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`);
  }
}

/** A JSON ModelConfig (e.g. the `config` parameter of a repository load) that is not valid. */
export class ModelConfigJsonError extends MeshError {
  readonly code = 'MODEL_CONFIG_INVALID';

  constructor(message: string) {
    super(message);
  }
}
