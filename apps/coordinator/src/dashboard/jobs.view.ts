import {
  JobNotFoundError,
  jobResultLine,
  jobStatusView,
  type JobRepository,
  type JobResultLine,
  type JobStatusView,
} from '@mesh/jobs';
import type { Clock } from '../rollout/rollout.ports';

export type JobRow = JobStatusView & { tenant: string; task: string };

export interface JobsView {
  jobs: JobRow[];
}

/** Newest jobs of every tenant shown at once. */
const LIST_LIMIT = 100;

/**
 * The Jobs view: bulk jobs of all tenants (the admin listing), cancel, and results. Reads and
 * writes go through the job repository the router and the workers use, so a cancel here is
 * the same transition as `DELETE /v1/jobs/:id`.
 */
export class JobsViewReader {
  constructor(
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
  ) {}

  async read(): Promise<JobsView> {
    const records = await this.jobs.list({ limit: LIST_LIMIT });
    const now = this.clock.now();
    return {
      jobs: records.map((r) => ({ ...jobStatusView(r, now), tenant: r.tenant, task: r.task })),
    };
  }

  async cancel(jobId: string): Promise<JobRow> {
    await this.find(jobId);
    await this.jobs.finish(jobId, 'cancelled', this.clock.now(), 'cancelled from the dashboard');
    const after = await this.find(jobId);
    return { ...jobStatusView(after, this.clock.now()), tenant: after.tenant, task: after.task };
  }

  /** Every result written so far, in input order (a running job's later chunks are skipped). */
  async *results(jobId: string): AsyncGenerator<JobResultLine> {
    const job = await this.find(jobId);
    const pin = { model: job.model, version: job.version, pipeline: job.pipeline };
    for (let chunk = 0; chunk < job.chunks; chunk++) {
      const written = await this.jobs.readResults(jobId, chunk);
      if (!written) continue;
      for (const [i, result] of written.results.entries()) {
        yield jobResultLine(chunk * job.chunkSize + i, written.ids?.[i] ?? undefined, pin, result);
      }
    }
  }

  /** Fails (404) before any byte of a download is sent. */
  async exists(jobId: string): Promise<void> {
    await this.find(jobId);
  }

  private async find(jobId: string) {
    const job = await this.jobs.get(jobId);
    if (!job) throw new JobNotFoundError(jobId);
    return job;
  }
}
