import type { JobRepository } from './job.repository';
import type { JobItem } from './job.types';
import { EmptyJobError } from './jobs.errors';

export interface UploadSummary {
  total: number;
  chunks: number;
  /** True when at least one item carries a textPair (pins to a pair-capable pipeline). */
  hasPairs: boolean;
}

/**
 * Streams items into the job store one chunk at a time, so an upload of any size holds at
 * most one chunk in memory. On any failure (bad line, cap, Redis) everything written so far
 * is deleted: a rejected upload leaves nothing behind.
 */
export class JobUploadWriter {
  constructor(
    private readonly repository: JobRepository,
    private readonly chunkSize: number,
  ) {}

  async write(
    jobId: string,
    items: AsyncIterable<JobItem> | Iterable<JobItem>,
  ): Promise<UploadSummary> {
    let chunk: JobItem[] = [];
    let chunks = 0;
    let total = 0;
    let hasPairs = false;
    try {
      for await (const item of items) {
        chunk.push(item);
        total += 1;
        if (item.textPair !== undefined) hasPairs = true;
        if (chunk.length >= this.chunkSize) {
          await this.repository.writeItems(jobId, chunks, chunk);
          chunks += 1;
          chunk = [];
        }
      }
      if (chunk.length > 0) {
        await this.repository.writeItems(jobId, chunks, chunk);
        chunks += 1;
      }
      if (total === 0) throw new EmptyJobError();
      return { total, chunks, hasPairs };
    } catch (err: unknown) {
      await this.repository.discard(jobId, chunks + 1);
      throw err;
    }
  }
}
