import { MeshError } from '@mesh/errors';

/** A problem with one field of a request, e.g. `texts[3]: must be a string`. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** Issues spelled out in the message; `issues` has them all (a gRPC status line stays short). */
const LISTED_ISSUES = 5;

/**
 * The request body or message did not match the API's schema. The message lists the issues
 * (a client that only shows the message still sees what to fix); `issues` has them as data.
 */
export class RequestValidationError extends MeshError {
  readonly code = 'INVALID_ARGUMENT';

  constructor(readonly issues: readonly FieldIssue[]) {
    const shown = issues.slice(0, LISTED_ISSUES).map((i) => `${i.path || 'body'}: ${i.message}`);
    if (issues.length > LISTED_ISSUES) shown.push(`${issues.length - LISTED_ISSUES} more`);
    super(
      issues.length === 1
        ? `invalid request: ${shown.join('; ')}`
        : `invalid request: ${issues.length} problems: ${shown.join('; ')}`,
    );
  }
}

/** A sync batch with more items than the bound derived from the backend message limit. */
export class BatchTooLargeError extends MeshError {
  readonly code = 'BATCH_TOO_LARGE';

  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`batch has ${size} texts; the limit is ${limit} (use a bulk job for more)`);
  }
}

/** An admin route to an unknown model, or a version the router cannot serve. */
export class UnknownModelError extends MeshError {
  readonly code = 'INVALID_ARGUMENT';

  constructor(readonly model: string) {
    super(`model '${model}' is not in the model repository`);
  }
}

/** The request's headers exceed the HTTP server's limit (Node's `maxHeaderSize`). */
export class HeadersTooLargeError extends MeshError {
  readonly code = 'HEADERS_TOO_LARGE';

  constructor() {
    super('request headers exceed the size limit');
  }
}

/** The request did not arrive in full within HTTP_REQUEST_TIMEOUT_MS (headers: _HEADERS_). */
export class RequestTimeoutError extends MeshError {
  readonly code = 'REQUEST_TIMEOUT';

  constructor() {
    super('the request did not arrive in time');
  }
}

/** Bytes that are not an HTTP/1.1 request Node can parse. */
export class MalformedHttpRequestError extends MeshError {
  readonly code = 'INVALID_ARGUMENT';

  constructor() {
    super('malformed HTTP request');
  }
}

/** A known path asked with a method it does not answer. */
export class MethodNotAllowedError extends MeshError {
  readonly code = 'METHOD_NOT_ALLOWED';

  constructor(
    readonly method: string,
    readonly allow: readonly string[],
  ) {
    super(`method ${method} is not allowed here (allowed: ${allow.join(', ')})`);
  }
}

/** The caller went away (closed the connection or cancelled the call) before its answer. */
export class CallCancelledError extends MeshError {
  readonly code = 'CLIENT_CLOSED';

  constructor() {
    super('the caller cancelled the request');
  }
}

/** The router is shutting down and takes no new work; the caller should ask another router. */
export class ShuttingDownError extends MeshError {
  readonly code = 'SHUTTING_DOWN';

  constructor(what: string) {
    super(`the router is shutting down: ${what}`);
  }
}

/**
 * The routed version is resident on no backend and did not become READY (and verified) within
 * ROUTER_COLD_START_WAIT_MS: its load was asked for, so the same call is worth retrying.
 */
export class ModelLoadingError extends MeshError {
  readonly code = 'MODEL_LOADING';

  constructor(
    readonly model: string,
    readonly version: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `model '${model}' version ${version} is loading: no backend serves it yet; retry in ${retryAfterSeconds} s`,
    );
  }
}
