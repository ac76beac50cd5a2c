import { z } from 'zod';
import type { JobItem } from './job.types';

/** One input item, the same for JSON bodies, NDJSON lines and gRPC messages. */
export const jobItemSchema = z
  .object({
    id: z
      .union([z.string().max(256, 'must be at most 256 characters'), z.number().finite()], {
        invalid_type_error: 'must be a string or a number',
      })
      .optional(),
    text: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }),
    textPair: z.string({ invalid_type_error: 'must be a string' }).optional(),
  })
  .passthrough();

/** Validates one item; returns it or the first problem as `field: message`. */
export function parseJobItem(value: unknown): JobItem | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be a JSON object with a "text" field';
  }
  const parsed = jobItemSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return issue ? `${issue.path.join('.') || '(item)'}: ${issue.message}` : 'invalid item';
  }
  const { id, text, textPair } = parsed.data;
  const item: JobItem = { text };
  if (textPair !== undefined) item.textPair = textPair;
  if (id !== undefined) item.id = id;
  return item;
}
