import {
  type JobListing,
  type JobReader,
  type JobResultLine,
  type JobViewer as ReaderViewer,
  type JobStatusView,
} from '@mesh/jobs';
import type { Tenant } from '@mesh/routing';
import type { ListJobsQuery } from './job-commands';

export type { JobResultLine };

/** Who asks: a tenant sees its own jobs only; the admin sees every tenant's. */
export type JobViewer = { tenant: Tenant } | { admin: true };

/** Recorded on a job cancelled through `DELETE /v1/jobs/:id` (or gRPC CancelJob). */
const CANCEL_REASON = 'cancelled by request';

/**
 * The jobs API's reads and cancel, over the shared JobReader (@mesh/jobs, which the
 * coordinator's dashboard uses too). What is the router's own: the authenticated Tenant as
 * the viewer, the cancel reason, and the answers' shapes — a status names neither tenant nor
 * task, a listing names the tenant only.
 */
export class JobQueryService {
  constructor(private readonly reader: JobReader) {}

  status(viewer: JobViewer, jobId: string): Promise<JobStatusView> {
    return this.reader.status(readerViewer(viewer), jobId);
  }

  async list(
    viewer: JobViewer,
    query: ListJobsQuery,
  ): Promise<(JobStatusView & { tenant: string })[]> {
    const rows = await this.reader.list(readerViewer(viewer), query);
    return rows.map(({ task: _task, ...row }) => row);
  }

  async cancel(viewer: JobViewer, jobId: string): Promise<JobStatusView> {
    return statusOf(await this.reader.cancel(readerViewer(viewer), jobId, CANCEL_REASON));
  }

  /** Result lines from input index `from`, waiting for unwritten chunks while the job runs. */
  results(
    viewer: JobViewer,
    jobId: string,
    from: number,
    signal: AbortSignal,
  ): AsyncGenerator<JobResultLine[]> {
    return this.reader.results(readerViewer(viewer), jobId, { from, follow: signal });
  }

  events(viewer: JobViewer, jobId: string, signal: AbortSignal): AsyncGenerator<JobStatusView> {
    return this.reader.events(readerViewer(viewer), jobId, signal);
  }
}

function readerViewer(viewer: JobViewer): ReaderViewer {
  return 'tenant' in viewer ? { tenant: viewer.tenant.name } : viewer;
}

function statusOf({ tenant: _tenant, task: _task, ...status }: JobListing): JobStatusView {
  return status;
}
