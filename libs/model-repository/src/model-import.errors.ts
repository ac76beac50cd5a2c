import { MeshError } from '@mesh/errors';

export type ModelImportErrorCode =
  /** The ONNX graph's inputs/outputs cannot be served (fixed dims, static batch, types, names). */
  | 'SIGNATURE_UNSUPPORTED'
  /** The classifier's output width differs from the number of labels. */
  | 'LABEL_COUNT_MISMATCH'
  /** A new version of an existing model does not match that model's config or labels. */
  | 'EXISTING_MODEL_MISMATCH';

/**
 * A model that cannot become a servable version as given. `problems` lists every reason at
 * once, each naming the tensor or file and what to change.
 */
export class ModelImportError extends MeshError {
  constructor(
    readonly code: ModelImportErrorCode,
    readonly problems: readonly string[],
  ) {
    super(problems.join('\n'));
  }
}
