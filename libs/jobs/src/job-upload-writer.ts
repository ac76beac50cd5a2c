import type { JobRepository } from './job.repository';
import type { JobItem } from './job.types';
import { EmptyJobError } from './jobs.errors';

export interface UploadSummary {
  total: number;
  chunks: number;
  /** Index of the first item with a textPair, if any (pins to a pair-capable pipeline). */
  firstPair?: number;
}

/**
 * Streams items into the job store one chunk at a time, so an upload of any size holds at
 * most one chunk in memory. Each chunk is first reserved (`reserve`, the tenant's quota:
 * it throws when the chunk would pass it). On any failure (bad line, cap, quota, Redis)
 * everything written so far is deleted: a rejected upload leaves nothing behind.
 */
export class JobUploadWriter {
  constructor(
    private readonly repository: JobRepository,
    private readonly chunkSize: number,
    private readonly reserve: (items: number) => Promise<void> = () => Promise.resolve(),
  ) {}

  async write(
    jobId: string,
    items: AsyncIterable<JobItem> | Iterable<JobItem>,
  ): Promise<UploadSummary> {
    let chunk: JobItem[] = [];
    let chunks = 0;
    let total = 0;
    let firstPair: number | undefined;
    try {
      for await (const item of items) {
        if (item.textPair !== undefined) firstPair ??= total;
        chunk.push(item);
        total += 1;
        if (chunk.length >= this.chunkSize) {
          await this.reserve(chunk.length);
          await this.repository.writeItems(jobId, chunks, chunk);
          chunks += 1;
          chunk = [];
        }
      }
      if (chunk.length > 0) {
        await this.reserve(chunk.length);
        await this.repository.writeItems(jobId, chunks, chunk);
        chunks += 1;
      }
      if (total === 0) throw new EmptyJobError();
      return firstPair === undefined ? { total, chunks } : { total, chunks, firstPair };
    } catch (err: unknown) {
      await this.repository.discard(jobId, chunks + 1);
      throw err;
    }
  }
}
