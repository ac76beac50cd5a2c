import type { JobChangeFeed } from './job-change-feed';
import { jobResultLine, type JobResultLine } from './job-result-line';
import type { JobRepository } from './job.repository';
import { TERMINAL_STATES, type JobRecord, type JobState } from './job.types';
import { jobStatusView, type JobStatusView } from './job-view';
import { JobNotFoundError } from './jobs.errors';

/** Who asks: a tenant (by name) sees its own jobs only; the admin sees every tenant's. */
export type JobViewer = { tenant: string } | { admin: true };

/** A job as listed: its status plus the owning tenant and the task it runs. */
export type JobListing = JobStatusView & { tenant: string; task: string };

export interface JobListQuery {
  state?: JobState;
  limit: number;
}

export interface JobReaderOptions {
  /**
   * Wakes a waiting stream when its job changes (pub/sub, with a polling fallback). Only
   * following (results that wait for chunks, progress events) needs it.
   */
  changes?: JobChangeFeed;
  now?: () => number;
}

export interface ResultsOptions {
  /** First input index to answer (0 = from the start). */
  from?: number;
  /**
   * Wait for chunks not written yet while the job runs, until this signal aborts. Without it,
   * only what is written now is answered (a running job's later chunks are skipped).
   */
  follow?: AbortSignal;
}

/**
 * Reading and cancelling bulk jobs as the router's `/v1/jobs` API and the coordinator's
 * dashboard both do: status, listings, results in input order and progress events. Another
 * tenant's job id answers exactly like an unknown one (JobNotFoundError, 404), so a tenant
 * cannot learn which ids exist.
 */
export class JobReader {
  private readonly changes: JobChangeFeed | undefined;
  private readonly now: () => number;

  constructor(
    private readonly repository: JobRepository,
    options: JobReaderOptions = {},
  ) {
    this.changes = options.changes;
    this.now = options.now ?? Date.now;
  }

  /** The job's record, if `viewer` may see it; JobNotFoundError otherwise. */
  async find(viewer: JobViewer, jobId: string): Promise<JobRecord> {
    const job = await this.repository.get(jobId);
    if (!job || ('tenant' in viewer && job.tenant !== viewer.tenant)) {
      throw new JobNotFoundError(jobId);
    }
    return job;
  }

  async status(viewer: JobViewer, jobId: string): Promise<JobStatusView> {
    return jobStatusView(await this.find(viewer, jobId), this.now());
  }

  async list(viewer: JobViewer, query: JobListQuery): Promise<JobListing[]> {
    const records = await this.repository.list({
      ...('tenant' in viewer ? { tenant: viewer.tenant } : {}),
      ...(query.state === undefined ? {} : { state: query.state }),
      limit: query.limit,
    });
    const now = this.now();
    return records.map((r) => listing(r, now));
  }

  /**
   * Cancels an unfinished job (running chunks finish, the rest is dropped); idempotent.
   * `reason` is recorded on the job (shown in its status). Answers the job as it is after.
   */
  async cancel(viewer: JobViewer, jobId: string, reason: string): Promise<JobListing> {
    await this.find(viewer, jobId);
    await this.repository.finish(jobId, 'cancelled', this.now(), reason);
    return listing(await this.find(viewer, jobId), this.now());
  }

  /**
   * Result lines from input index `from`, in input order, one array per chunk. Following, a
   * chunk not written yet is waited for while the job runs; once the job has ended (cancelled),
   * missing chunks are skipped.
   */
  async *results(
    viewer: JobViewer,
    jobId: string,
    { from = 0, follow }: ResultsOptions = {},
  ): AsyncGenerator<JobResultLine[]> {
    let job = await this.find(viewer, jobId);
    const changes = follow ? this.feed() : undefined;
    const pin = { model: job.model, version: job.version, pipeline: job.pipeline };
    for (let chunk = Math.floor(from / job.chunkSize); chunk < job.chunks; chunk++) {
      let written = await this.repository.readResults(jobId, chunk);
      if (changes && follow) {
        while (!written && !TERMINAL_STATES.has(job.state)) {
          // Armed (subscribed) before the re-read, so a chunk written in between still wakes us.
          const wait = changes.arm(jobId, follow);
          try {
            await wait.armed;
            job = (await this.repository.get(jobId)) ?? { ...job, state: 'failed' };
            written = await this.repository.readResults(jobId, chunk);
            if (!written && !TERMINAL_STATES.has(job.state)) await wait.changed;
          } finally {
            wait.dispose();
          }
          if (follow.aborted) return;
        }
        // A chunk can have been written just before the job ended.
        written ??= await this.repository.readResults(jobId, chunk);
      }
      if (!written) continue;
      const lines: JobResultLine[] = [];
      written.results.forEach((result, i) => {
        const index = chunk * job.chunkSize + i;
        if (index < from) return;
        const id = written.ids?.[i];
        lines.push(jobResultLine(index, id ?? undefined, pin, result));
      });
      if (lines.length > 0) yield lines;
      if (follow?.aborted) return;
    }
  }

  /** Status snapshots whenever progress or state changes, ending with the terminal one. */
  async *events(
    viewer: JobViewer,
    jobId: string,
    signal: AbortSignal,
  ): AsyncGenerator<JobStatusView> {
    await this.find(viewer, jobId);
    const changes = this.feed();
    let last = '';
    for (;;) {
      const wait = changes.arm(jobId, signal);
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

  private feed(): JobChangeFeed {
    if (!this.changes) {
      throw new Error('JobReader: following a job needs the `changes` feed (JobReaderOptions)');
    }
    return this.changes;
  }
}

function listing(r: JobRecord, now: number): JobListing {
  return { ...jobStatusView(r, now), tenant: r.tenant, task: r.task };
}
