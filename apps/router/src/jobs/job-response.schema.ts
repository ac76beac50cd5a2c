import { JOB_STATES, type JobStatusView } from '@mesh/jobs';
import { z } from 'zod';
import type { JobResultLine } from './job-query.service';
import type { SubmittedJob } from './job-commands';

/**
 * The JSON answers of the jobs API, for the OpenAPI document. The assignments at the end
 * stop the build if a view the controller sends drifts from its documented shape.
 */
const pinned = {
  model: z.string(),
  version: z.number().int().describe('the pinned version: every item runs on it'),
  pipeline: z.string().describe('pipeline@version'),
};

export const submittedJobSchema = z.object({
  jobId: z.string(),
  ...pinned,
  total: z.number().int().describe('items stored'),
});

export const jobStatusSchema = z.object({
  id: z.string(),
  state: z.enum(JOB_STATES),
  reason: z
    .string()
    .optional()
    .describe('why the job waits (waiting_for_version) or ended (cancelled, failed)'),
  total: z.number().int(),
  processed: z.number().int().describe('items with a result line (ok or error)'),
  succeeded: z.number().int(),
  failedItems: z.number().int().describe('items whose result is an error (e.g. TEXT_TOO_LONG)'),
  itemsPerSecond: z.number(),
  etaSeconds: z.number().int().nullable().describe('null before any progress'),
  ...pinned,
  createdAt: z.string().describe('ISO-8601'),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  traceId: z
    .string()
    .optional()
    .describe('W3C trace id of the job (submit, chunks, backend calls) when tracing was on'),
});

export const jobListSchema = z.object({
  jobs: z.array(jobStatusSchema.extend({ tenant: z.string().describe('the owning tenant') })),
});

const labelScore = z.object({ label: z.string(), score: z.number() });

/** One NDJSON line of `/results`: a prediction on the pinned version, or an item error. */
export const jobResultLineSchema = z.object({
  index: z.number().int().describe('0-based input position; lines come in input order'),
  id: z.union([z.string(), z.number()]).optional().describe('the item’s id, when it had one'),
  model: z.string().optional(),
  version: z.number().int().optional(),
  pipeline: z.string().optional(),
  label: z.string().optional().describe('classification tasks'),
  score: z.number().optional(),
  scores: z.array(labelScore).optional(),
  embedding: z.array(z.number()).optional().describe('embedding tasks'),
  error: z
    .object({ code: z.string().describe('e.g. TEXT_TOO_LONG'), message: z.string() })
    .optional()
    .describe('instead of a prediction, for an item that could not be scored'),
});

// Compile-time agreement between what is sent and what is documented.
const sentStatus = (v: JobStatusView): z.input<typeof jobStatusSchema> => v;
const sentSubmitted = (v: SubmittedJob): z.input<typeof submittedJobSchema> => v;
const sentLine = (v: JobResultLine): z.input<typeof jobResultLineSchema> => v;
export const VIEWS_MATCH_SCHEMAS = [sentStatus, sentSubmitted, sentLine] as const;
