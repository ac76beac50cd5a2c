import { type JobListing, type JobReader, type JobResultLine } from '@mesh/jobs';

export type JobRow = JobListing;

export interface JobsView {
  jobs: JobRow[];
}

/** Newest jobs of every tenant shown at once. */
const LIST_LIMIT = 100;

/** The dashboard is an admin surface: it sees every tenant's jobs. */
const ADMIN = { admin: true } as const;

/** Recorded on a job cancelled from the Jobs view. */
const CANCEL_REASON = 'cancelled from the dashboard';

/**
 * The Jobs view: bulk jobs of all tenants (the admin listing), cancel, and results. It reads
 * and cancels through the JobReader the router's `/v1/jobs` API uses (@mesh/jobs), so a cancel
 * here is the same transition as `DELETE /v1/jobs/:id`.
 */
export class JobsViewReader {
  constructor(private readonly reader: JobReader) {}

  async read(): Promise<JobsView> {
    return { jobs: await this.reader.list(ADMIN, { limit: LIST_LIMIT }) };
  }

  cancel(jobId: string): Promise<JobRow> {
    return this.reader.cancel(ADMIN, jobId, CANCEL_REASON);
  }

  /** Every result written so far, in input order (a running job's later chunks are skipped). */
  async *results(jobId: string): AsyncGenerator<JobResultLine> {
    for await (const lines of this.reader.results(ADMIN, jobId)) yield* lines;
  }

  /** Fails (404) before any byte of a download is sent. */
  async exists(jobId: string): Promise<void> {
    await this.reader.find(ADMIN, jobId);
  }
}
