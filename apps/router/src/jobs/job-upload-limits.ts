/** Byte caps of a streamed NDJSON upload (the item cap comes from the submission service). */
export interface JobUploadLimits {
  maxBytes: number;
  maxLineBytes: number;
}

export const JOB_UPLOAD_LIMITS = Symbol('JOB_UPLOAD_LIMITS');
