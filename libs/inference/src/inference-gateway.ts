import type { EncodedBatch } from '@mesh/preprocessing';
import type { OutputTensor } from '@mesh/preprocessing';
import type { ServableVersion } from './servable-version';

export interface InferenceMeta {
  requestId: string;
  traceparent: string | undefined;
  /** Triton priority level: 1 for online answers, 2 for shadow copies (and bulk jobs). */
  priority: 1 | 2;
  /** Overall budget of the call; default the backends' KSERVE_DEADLINE_MS. */
  deadlineMs?: number;
  /** Aborts when the caller left: the backend call is cancelled (a queued request is dropped). */
  signal?: AbortSignal;
}

/** Sends one encoded batch to a backend serving the version and returns its float output. */
export interface InferenceGateway {
  infer(version: ServableVersion, batch: EncodedBatch, meta: InferenceMeta): Promise<OutputTensor>;
}
