import { MeshError } from '@mesh/errors';

export type ModelRepositoryErrorCode = 'REPOSITORY_NOT_FOUND' | 'REPOSITORY_UNREADABLE';

/** The repository root itself cannot be scanned (a single model's problems never throw). */
export class ModelRepositoryError extends MeshError {
  constructor(
    readonly code: ModelRepositoryErrorCode,
    readonly root: string,
    message: string,
  ) {
    super(message);
  }
}
