import { fieldPath } from '@mesh/errors';
import { BLANK_TEXT_MESSAGE, NON_BLANK_TEXT } from '@mesh/preprocessing';
import { z, type ZodTypeAny } from 'zod';
import { RequestValidationError } from '../errors/router.errors';

const TASK = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const task = z
  .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
  .regex(TASK, 'must be 1-64 characters of [A-Za-z0-9._-]')
  .describe('task name, see GET /v1/tasks');
/**
 * One text, on every entry point (HTTP and gRPC predict, batch, tokenize): a string with at
 * least one non-whitespace character, so an empty text is refused naming its field
 * (`texts[3]: must not be empty`) instead of getting an answer about nothing.
 */
const text = z
  .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
  .regex(NON_BLANK_TEXT, BLANK_TEXT_MESSAGE);

export const predictSchema = z
  .object({
    task,
    text: text.describe(
      'the text: not empty or whitespace only, at most the version’s hardMaxChars characters (code points)',
    ),
    textPair: text
      .optional()
      .describe('second segment for pair tasks; when given, not empty or whitespace only'),
  })
  .strict();

/** The batch bound is checked by the service (it derives from the model's max length). */
export const predictBatchSchema = z
  .object({
    task,
    texts: z
      .array(text)
      .min(1, 'must hold at least one text')
      .describe('at most 256 texts, and no more than fit one backend message'),
  })
  .strict();

export const tokenizeSchema = predictSchema;

/**
 * Validates a decoded request once, at the edge, into the typed command the core takes.
 * `at` names where the value came from when it is not the body (`query.limit`,
 * `header.x-mesh-expected-epoch`), so the issue path says so.
 */
export function parseRequest<S extends ZodTypeAny>(
  schema: S,
  input: unknown,
  at?: string,
): z.output<S> {
  const result = schema.safeParse(input ?? undefined);
  if (result.success) return result.data as z.output<S>;
  throw new RequestValidationError(
    result.error.issues.map((i) => ({
      path: fieldPath([...(at === undefined ? [] : [at]), ...i.path]),
      message: i.message,
    })),
  );
}
