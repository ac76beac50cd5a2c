import { MeshError } from '@mesh/errors';

/** The backend answered, but not with what the version's config promised. */
export class BadBackendResponseError extends MeshError {
  readonly code = 'BAD_BACKEND_RESPONSE';

  constructor(reason: string) {
    super(reason);
  }
}
