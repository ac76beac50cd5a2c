import type { JobRepository } from '../job.repository';
import type { ItemResult, JobRecord } from '../job.types';

/** A classification result, as a worker writes it for one item. */
export function classified(label = 'a'): ItemResult {
  return { kind: 'classification', label, score: 1, scores: [] };
}

/**
 * A queued job of `acme`: 3 items of intent-zh v2 in 2 chunks, created now, nothing processed.
 * `over` changes any field; the pipeline follows the version unless given.
 */
export function jobRecord(id: string, over: Partial<JobRecord> = {}): JobRecord {
  const version = over.version ?? 2;
  return {
    id,
    tenant: 'acme',
    task: 'intent',
    model: 'intent-zh',
    version,
    pipeline: `bert-wordpiece@${version}`,
    state: 'queued',
    total: 3,
    chunkSize: 2,
    chunks: 2,
    processed: 0,
    succeeded: 0,
    failedItems: 0,
    createdAt: Date.now(),
    ...over,
  };
}

/** A job of one item in one chunk (`jobRecord` otherwise). */
export function oneItemJob(id: string, over: Partial<JobRecord> = {}): JobRecord {
  return jobRecord(id, { total: 1, chunkSize: 1, chunks: 1, ...over });
}

/** A running job pinned to `version` of `model`: what retiring that version waits for. */
export function pinnedJob(
  id: string,
  model: string,
  version: number,
  over: Partial<JobRecord> = {},
): JobRecord {
  return jobRecord(id, { model, version, state: 'running', ...over });
}

/** Writes a job's chunk 0 as one classified item: a chunk write, which notifies its channel. */
export function writeOneResult(repo: JobRepository, jobId: string): Promise<boolean> {
  return repo.writeResults(jobId, 0, [{ text: 'a' }], [classified('pos')]);
}
