import { z } from 'zod';
import { ManifestError, type ManifestIssue } from './preprocess-manifest.errors';

const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
  // Stored lower-case so comparisons with computed digests are plain string equality.
  .transform((s) => s.toLowerCase());

const relativeFile = z
  .string()
  .min(1, 'must not be empty')
  .refine(
    (p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p),
    'must be relative to the version directory',
  )
  .refine((p) => !p.split(/[\\/]/).includes('..'), "must not contain '..'");

const name = z.string().min(1, 'must not be empty');
const positiveInt = z.number().int('must be an integer').positive('must be a positive integer');

const classification = z
  .object({
    kind: z.literal('classification'),
    output: name,
    activation: z.enum(['softmax', 'sigmoid', 'none']),
    topK: positiveInt,
  })
  .strict();

const embedding = z
  .object({
    kind: z.literal('embedding'),
    output: name,
    pooling: z.enum(['cls', 'mean']),
    normalize: z.boolean(),
  })
  .strict();

/** Schema of `<model>/<version>/preprocess.json` as pinned in ARCHITECTURE.md. */
export const preprocessManifestSchema = z
  .object({
    pipeline: name,
    pipelineVersion: positiveInt,
    tokenizer: z.object({ file: relativeFile, sha256 }).strict(),
    model: z.object({ sha256 }).strict(),
    maxLength: z
      .number()
      .int('must be an integer')
      .min(2, 'must be between 2 and 8192')
      .max(8192, 'must be between 2 and 8192'),
    hardMaxChars: positiveInt,
    padding: z.enum(['fixed', 'dynamic']),
    truncation: z.enum(['longest_first', 'only_first', 'only_second']),
    inputs: z.object({ ids: name, mask: name, typeIds: name.optional() }).strict(),
    postprocess: z.discriminatedUnion('kind', [classification, embedding]),
  })
  .strict()
  .superRefine((m, ctx) => {
    const names = [m.inputs.ids, m.inputs.mask, m.inputs.typeIds].filter((n) => n !== undefined);
    if (new Set(names).size !== names.length) {
      ctx.addIssue({ code: 'custom', path: ['inputs'], message: 'input names must be distinct' });
    }
  });

export type PreprocessManifest = z.infer<typeof preprocessManifestSchema>;
export type PostprocessSpec = PreprocessManifest['postprocess'];

const quoted = (options: readonly unknown[]) => options.map((o) => `'${String(o)}'`).join(', ');

function issueMessage(issue: z.ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.received === 'undefined') return 'is required';
    const article = /^[aeiou]/.test(issue.expected) ? 'an' : 'a';
    return `must be ${article} ${issue.expected} (got ${issue.received})`;
  }
  if (issue.code === 'invalid_enum_value') {
    return `must be one of ${quoted(issue.options)} (got ${JSON.stringify(issue.received)})`;
  }
  if (issue.code === 'invalid_union_discriminator') {
    return `must be one of ${quoted(issue.options)}`;
  }
  if (issue.code === 'invalid_literal') return `must be ${JSON.stringify(issue.expected)}`;
  // Every other issue carries the message written in the schema above.
  return issue.message;
}

/** Flattens zod issues into `path: message` pairs; unknown keys become one issue each. */
function toIssues(error: z.ZodError): ManifestIssue[] {
  return error.issues.flatMap((issue): ManifestIssue[] => {
    const path = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ path: path ? `${path}.${k}` : k, message: 'unknown field' }));
    }
    return [{ path: path || '(root)', message: issueMessage(issue) }];
  });
}

/**
 * Validates a parsed `preprocess.json`. `file` labels errors (e.g. `question-type-zh/2/preprocess.json`).
 * Throws ManifestError (code MANIFEST_INVALID) listing every bad field.
 */
export function parsePreprocessManifest(json: unknown, file: string): PreprocessManifest {
  const result = preprocessManifestSchema.safeParse(json);
  if (result.success) return result.data;
  throw new ManifestError('MANIFEST_INVALID', file, toIssues(result.error));
}
