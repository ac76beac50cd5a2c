export {
  decodeItems,
  decodeResults,
  encodeItems,
  encodeResults,
  type ChunkResults,
} from './chunk.codec';
export {
  CHUNK_NAME,
  CHUNK_QUEUE,
  JOB_NAME,
  JOB_QUEUE,
  bullPrefix,
  chunkJobId,
  chunkJobSpec,
  chunkPayloadSchema,
  chunkPriority,
  jobPayloadSchema,
  parentJobSpec,
  type ChunkPayload,
  type JobPayload,
  type QueuedJobSpec,
  type RetryPolicy,
} from './job-queue-contracts';
export { JobChangeFeed, type ArmedWait } from './job-change-feed';
export { JobFlowProducer } from './job-flow-producer';
export { jobResultLine, type JobResultLine } from './job-result-line';
export { jobItemSchema, parseJobItem } from './job-item.schema';
export { JobKeys } from './job.keys';
export { JobPinReader, type PinnedJobs } from './job-pin-reader';
export {
  JobReader,
  type JobListQuery,
  type JobListing,
  type JobReaderOptions,
  type JobViewer,
  type ResultsOptions,
} from './job-reader';
export { JobQuotaLedger, type QuotaLedgerOptions, type Reservation } from './job-quota-ledger';
export { JobRepository, type JobRepositoryOptions, type ListOptions } from './job.repository';
export {
  JOB_STATES,
  TERMINAL_STATES,
  isJobState,
  type ItemError,
  type ItemId,
  type ItemResult,
  type JobItem,
  type JobRecord,
  type JobState,
  type LabelScoreResult,
  type PinnedVersion,
} from './job.types';
export { JobUploadWriter, type UploadSummary } from './job-upload-writer';
export { jobStatusView, type JobStatusView } from './job-view';
export {
  EmptyJobError,
  JobInputError,
  JobNotFoundError,
  JobQuotaExceededError,
  JobTooLargeError,
} from './jobs.errors';
export { parseNdjsonItems, type NdjsonLimits } from './ndjson-items.parser';
export { jobsEnv, replicaAckOf, retryPolicyOf } from './jobs.config';
