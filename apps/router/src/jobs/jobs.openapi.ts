import { jobItemSchema } from '@mesh/jobs';
import { z } from 'zod';
import type { ApiDocs } from '../openapi/api-docs';
import {
  fromSchema,
  idempotencyKeySchema,
  listQuerySchema,
  submitJsonSchema,
  taskSchema,
} from './job-request.schema';
import {
  jobListSchema,
  jobResultLineSchema,
  jobStatusSchema,
  submittedJobSchema,
} from './job-response.schema';

const tenantOp = { tag: 'jobs', auth: 'tenant' } as const;
const jobId = z.object({ id: z.string().describe('the job id answered by POST /v1/jobs') });
/** A listing of jobs (the tenant's or every tenant's): its query and what it answers. */
const jobListing = {
  method: 'get',
  query: listQuerySchema,
  errors: ['INVALID_ARGUMENT', 'STORE_UNAVAILABLE', 'INTERNAL'],
} as const;
/** One job by its id: an unknown id, or another tenant's, answers JOB_NOT_FOUND. */
const oneJob = {
  params: jobId,
  errors: ['JOB_NOT_FOUND', 'STORE_UNAVAILABLE', 'INTERNAL'],
} as const;

/** The bulk-jobs API (`JobsController`); user guide: docs/jobs.md. */
export function describeJobsApi(docs: ApiDocs): void {
  const status = docs.schema('JobStatus', jobStatusSchema);
  const item = docs.schema('JobItem', jobItemSchema);
  describeJobSubmit(docs, item);
  docs.operation({
    ...tenantOp,
    ...jobListing,
    path: '/v1/jobs',
    summary: 'List your jobs, newest first',
    response: { description: 'the jobs', schema: docs.schema('JobList', jobListSchema) },
  });
  docs.operation({
    ...tenantOp,
    ...oneJob,
    method: 'get',
    path: '/v1/jobs/{id}',
    summary: 'A job’s state and progress',
    description: 'Another tenant’s job id answers 404, exactly like an unknown one.',
    response: { description: 'state, counters, rate and ETA, pinned version', schema: status },
  });
  docs.operation({
    ...tenantOp,
    ...oneJob,
    method: 'get',
    path: '/v1/jobs/{id}/events',
    summary: 'Progress as Server-Sent Events until the job ends',
    description:
      'One `progress` event (data: a JobStatus) per change of state or progress, then an ' +
      '`end` event with the final status.',
    response: {
      description: 'an event stream',
      schema: z.string().describe('event: progress|end, data: JobStatus JSON'),
      contentType: 'text/event-stream',
    },
  });
  docs.operation({
    ...tenantOp,
    ...oneJob,
    method: 'get',
    path: '/v1/jobs/{id}/results',
    summary: 'Results as NDJSON, one line per item, in input order',
    description:
      'Can be opened while the job runs: written chunks come at once, then the stream waits for ' +
      'the next one in order. `?from=` resumes after a broken download. Each line is a ' +
      'JobResultLine.',
    query: z.object({ from: fromSchema.describe('first input index to send (default 0)') }),
    response: {
      description: 'NDJSON result lines',
      schema: docs.schema('JobResultLine', jobResultLineSchema),
      contentType: 'application/x-ndjson',
    },
    errors: ['INVALID_ARGUMENT', ...oneJob.errors],
  });
  docs.operation({
    ...tenantOp,
    ...oneJob,
    method: 'delete',
    path: '/v1/jobs/{id}',
    summary: 'Cancel a job',
    description: 'Chunks already running finish; the rest is dropped. Idempotent.',
    response: { description: 'the job, now cancelled (or already ended)', schema: status },
  });
  describeAdminJobsApi(docs, status);
}

/** POST /v1/jobs: a job's items as a JSON body or an NDJSON upload. */
function describeJobSubmit(docs: ApiDocs, item: typeof jobItemSchema): void {
  // The JSON body's items are checked one by one with the item schema (errors name items[i]).
  const submitJson = submitJsonSchema.extend({ items: z.array(item).min(1) });
  docs.operation({
    ...tenantOp,
    method: 'post',
    path: '/v1/jobs',
    summary: 'Submit a bulk job (JSON body, or an NDJSON upload with ?task=)',
    description:
      'Accepted at once (202): the items are stored in chunks and the job is pinned to one ' +
      '(model, version, pipeline) chosen by the route’s weights among the versions able to ' +
      'serve every item; all items run on it. `application/x-ndjson`: one item per line, ' +
      'streamed, with `?task=`. A text longer than the version’s limit does not refuse the job: ' +
      'that item’s result line is an error. Quota (max concurrent jobs, max queued items) is ' +
      'reserved atomically per tenant.',
    headers: z.object({
      'idempotency-key': idempotencyKeySchema.describe(
        'a retried submit with the same key answers the same job',
      ),
      'x-mesh-sticky-key': z.string().max(256).optional().describe('steers the version pick'),
    }),
    query: z.object({
      task: taskSchema.optional().describe('the task; required with an NDJSON body'),
    }),
    body: docs.schema('SubmitJobRequest', submitJson),
    alternativeBodies: {
      'application/x-ndjson': z
        .string()
        .describe('one JobItem JSON object per line: {"id"?, "text", "textPair"?}'),
    },
    response: {
      status: 202,
      description: 'the job, its pinned version and its item count',
      schema: docs.schema('SubmittedJob', submittedJobSchema),
    },
    errors: [
      'INVALID_INPUT',
      'TASK_NOT_FOUND',
      'JOB_QUOTA_EXCEEDED',
      'VERSION_UNROUTABLE',
      'BACKEND_UNAVAILABLE',
      'STORE_UNAVAILABLE',
      'INTERNAL',
    ],
  });
}

/** Every tenant's jobs, behind the admin key. */
function describeAdminJobsApi(docs: ApiDocs, status: typeof jobStatusSchema): void {
  const adminOp = { tag: 'jobs', auth: 'admin' } as const;
  docs.operation({
    ...adminOp,
    ...jobListing,
    path: '/v1/admin/jobs',
    summary: 'List every tenant’s jobs, newest first',
    response: { description: 'the jobs with their tenant', schema: jobListSchema },
  });
  docs.operation({
    ...adminOp,
    ...oneJob,
    method: 'get',
    path: '/v1/admin/jobs/{id}',
    summary: 'Any tenant’s job',
    response: { description: 'state and progress', schema: status },
  });
  docs.operation({
    ...adminOp,
    ...oneJob,
    method: 'delete',
    path: '/v1/admin/jobs/{id}',
    summary: 'Cancel any tenant’s job',
    response: { description: 'the job, now cancelled (or already ended)', schema: status },
  });
}
