import { MeshError } from '@mesh/errors';

/** One line (or item) of an upload is not a valid item. Nothing of the upload is stored. */
export class JobInputError extends MeshError {
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
export class EmptyJobError extends MeshError {
  readonly code = 'INVALID_INPUT';

  constructor() {
    super('the job has no items');
  }
}

/** An upload over the byte or item cap. */
export class JobTooLargeError extends MeshError {
  readonly code = 'PAYLOAD_TOO_LARGE';

  constructor(
    readonly limit: number,
    readonly unit: 'bytes' | 'items',
  ) {
    super(`the upload exceeds the limit of ${limit} ${unit}`);
  }
}

/** The tenant's job quota (queued items or concurrent jobs) would be exceeded. */
export class JobQuotaExceededError extends MeshError {
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
export class JobNotFoundError extends MeshError {
  readonly code = 'JOB_NOT_FOUND';

  constructor(readonly jobId: string) {
    super(`job '${jobId}' not found`);
  }
}
