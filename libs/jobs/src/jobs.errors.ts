/** Base of every error this library raises; edges map `code` to HTTP/gRPC status. */
export abstract class JobsError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One line (or item) of an upload is not a valid item. Nothing of the upload is stored. */
export class JobInputError extends JobsError {
  readonly code = 'INVALID_INPUT';

  constructor(
    message: string,
    /** 1-based line of an NDJSON upload, or absent for JSON bodies. */
    readonly line?: number,
    /** 0-based index of the item. */
    readonly index?: number,
  ) {
    super(message);
  }
}

/** An upload without a single item. */
export class EmptyJobError extends JobsError {
  readonly code = 'INVALID_INPUT';

  constructor() {
    super('the job has no items');
  }
}

/** An upload over the byte or item cap. */
export class JobTooLargeError extends JobsError {
  readonly code = 'PAYLOAD_TOO_LARGE';

  constructor(
    readonly limit: number,
    readonly unit: 'bytes' | 'items',
  ) {
    super(`the upload exceeds the limit of ${limit} ${unit}`);
  }
}

/** The tenant's job quota (queued items or concurrent jobs) would be exceeded. */
export class JobQuotaExceededError extends JobsError {
  readonly code = 'JOB_QUOTA_EXCEEDED';

  constructor(
    readonly quota: 'maxQueuedItems' | 'maxConcurrentJobs',
    readonly limit: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** Unknown job id, or one that belongs to another tenant (never says which). */
export class JobNotFoundError extends JobsError {
  readonly code = 'JOB_NOT_FOUND';

  constructor(readonly jobId: string) {
    super(`job '${jobId}' not found`);
  }
}
