import {
  JobNotFoundError,
  type JobChangeFeed,
  TERMINAL_STATES,
  jobResultLine,
  jobStatusView,
  type JobRecord,
  type JobResultLine,
  type JobRepository,
  type JobStatusView,
} from '@mesh/jobs';
import type { Tenant } from '@mesh/routing';
import type { ListJobsQuery } from './job.commands';

export type { JobResultLine };

/** Who asks: a tenant sees its own jobs only; the admin sees every tenant's. */
export type JobViewer = { tenant: Tenant } | { admin: true };

/**
 * Reading and cancelling jobs: status, listings, results in input order and progress
 * events. Another tenant's job id answers exactly like an unknown one (404).
 */
export class JobQueryService {
  constructor(
    private readonly repository: JobRepository,
    /** Wakes a waiting stream when its job changes (pub/sub, with a polling fallback). */
    private readonly changes: JobChangeFeed,
    private readonly now: () => number = Date.now,
  ) {}

  async status(viewer: JobViewer, jobId: string): Promise<JobStatusView> {
    return jobStatusView(await this.find(viewer, jobId), this.now());
  }

  async list(viewer: JobViewer, query: ListJobsQuery): Promise<JobStatusView[]> {
    const records = await this.repository.list({
      ...('tenant' in viewer ? { tenant: viewer.tenant.name } : {}),
      ...(query.state === undefined ? {} : { state: query.state }),
      limit: query.limit,
    });
    const now = this.now();
    return records.map((r) => ({ ...jobStatusView(r, now), tenant: r.tenant }));
  }

  /** Cancels an unfinished job (running chunks finish, the rest is dropped); idempotent. */
  async cancel(viewer: JobViewer, jobId: string): Promise<JobStatusView> {
    await this.find(viewer, jobId);
    await this.repository.finish(jobId, 'cancelled', this.now(), 'cancelled by request');
    return this.status(viewer, jobId);
  }

  /**
   * Result lines from input index `from`, in input order. A chunk not written yet is waited
   * for while the job runs; once the job has ended (cancelled), missing chunks are skipped.
   */
  async *results(
    viewer: JobViewer,
    jobId: string,
    from: number,
    signal: AbortSignal,
  ): AsyncGenerator<JobResultLine[]> {
    let job = await this.find(viewer, jobId);
    const pin = { model: job.model, version: job.version, pipeline: job.pipeline };
    for (let chunk = Math.floor(from / job.chunkSize); chunk < job.chunks; chunk++) {
      let written = await this.repository.readResults(jobId, chunk);
      while (!written && !TERMINAL_STATES.has(job.state)) {
        // Armed (subscribed) before the re-read, so a chunk written in between still wakes us.
        const wait = this.changes.arm(jobId, signal);
        try {
          await wait.armed;
          job = (await this.repository.get(jobId)) ?? { ...job, state: 'failed' };
          written = await this.repository.readResults(jobId, chunk);
          if (!written && !TERMINAL_STATES.has(job.state)) await wait.changed;
        } finally {
          wait.dispose();
        }
        if (signal.aborted) return;
      }
      // A chunk can have been written just before the job ended.
      written ??= await this.repository.readResults(jobId, chunk);
      if (!written) continue;
      const lines: JobResultLine[] = [];
      written.results.forEach((result, i) => {
        const index = chunk * job.chunkSize + i;
        if (index < from) return;
        const id = written.ids?.[i];
        lines.push(jobResultLine(index, id ?? undefined, pin, result));
      });
      if (lines.length > 0) yield lines;
      if (signal.aborted) return;
    }
  }

  /** Status snapshots whenever progress or state changes, ending with the terminal one. */
  async *events(
    viewer: JobViewer,
    jobId: string,
    signal: AbortSignal,
  ): AsyncGenerator<JobStatusView> {
    await this.find(viewer, jobId);
    let last = '';
    for (;;) {
      const wait = this.changes.arm(jobId, signal);
      try {
        await wait.armed;
        const record = await this.repository.get(jobId);
        if (!record) return;
        const view = jobStatusView(record, this.now());
        const key = `${view.state}/${view.processed}/${view.reason ?? ''}`;
        if (key !== last) {
          last = key;
          yield view;
        }
        if (TERMINAL_STATES.has(record.state)) return;
        await wait.changed;
      } finally {
        wait.dispose();
      }
      if (signal.aborted) return;
    }
  }

  private async find(viewer: JobViewer, jobId: string): Promise<JobRecord> {
    const job = await this.repository.get(jobId);
    if (!job || ('tenant' in viewer && job.tenant !== viewer.tenant.name)) {
      throw new JobNotFoundError(jobId);
    }
    return job;
  }
}
