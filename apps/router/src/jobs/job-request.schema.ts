import {
  JOB_STATES,
  JobInputError,
  JobTooLargeError,
  parseJobItem,
  type JobItem,
} from '@mesh/jobs';
import { oneOfMessage } from '@mesh/errors';
import { z } from 'zod';

const TASK = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const taskSchema = z
  .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
  .regex(TASK, 'must be 1-64 characters of [A-Za-z0-9._-]');

/** `?task=` of an NDJSON upload (errors name the `task` field). */
export const taskQuerySchema = z.object({ task: taskSchema });

/** `POST /v1/jobs` with a JSON body; items are checked one by one (see jsonItems). */
export const submitJsonSchema = z
  .object({
    task: taskSchema,
    items: z.array(z.unknown(), {
      required_error: 'is required',
      invalid_type_error: 'must be an array',
    }),
    stickyKey: z.string().min(1).max(256).optional(),
  })
  .strict();

export const listQuerySchema = z
  .object({
    state: z
      .enum(JOB_STATES, {
        errorMap: (_issue, ctx) => ({ message: oneOfMessage(JOB_STATES, ctx.data) }),
      })
      .optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

export const fromSchema = z.coerce
  .number({ invalid_type_error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be ≥ 0')
  .default(0);

export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7E]{1,256}$/, 'must be 1-256 printable ASCII characters')
  .optional();

/** The items of a JSON body, each validated, with the error naming `items[i].field`. */
export function* jsonItems(items: readonly unknown[], maxItems: number): Generator<JobItem> {
  if (items.length > maxItems) throw new JobTooLargeError(maxItems, 'items');
  for (let i = 0; i < items.length; i++) {
    const item = parseJobItem(items[i]);
    if (typeof item === 'string') throw new JobInputError(`items[${i}]: ${item}`, undefined, i);
    yield item;
  }
}
