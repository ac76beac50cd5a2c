/** Base of the errors this lib raises; each edge maps `code` through its error table. */
export abstract class InferenceError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The backend answered, but not with what the version's config promised. */
export class BadBackendResponseError extends InferenceError {
  readonly code = 'BAD_BACKEND_RESPONSE';

  constructor(reason: string) {
    super(reason);
  }
}
