/**
 * Base of every domain error in the mesh. `code` is a row of `ERROR_TABLE` (or, for errors
 * that never reach an API edge, a code of their own); `name` is the concrete class name so
 * logs say which error it was. Caller-visible details are the error's own plain-data fields
 * (see `errorBody`), so a subclass adds fields rather than a details bag.
 */
export abstract class MeshError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
