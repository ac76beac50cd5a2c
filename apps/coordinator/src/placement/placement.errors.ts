import { MeshError } from '@mesh/errors';
import { tooLargeReason } from '@mesh/placement';

/** A version whose footprint exceeds every backend's budget: no placement could ever load it. */
export class ModelTooLargeError extends MeshError {
  readonly code = 'MODEL_TOO_LARGE';

  constructor(
    readonly model: string,
    readonly version: number,
    readonly footprintMb: number,
    readonly largestBudgetMb: number,
  ) {
    super(
      tooLargeReason(model, version, footprintMb, largestBudgetMb) ??
        `version ${version} of model '${model}' needs ${footprintMb} MB, more than the largest backend budget (${largestBudgetMb} MB)`,
    );
  }
}
