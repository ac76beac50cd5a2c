import { z } from 'zod';

/**
 * The JSON answers of the predict API. The controller's mappers are typed by these, and the
 * OpenAPI document is generated from them, so the documented shape is the shape sent.
 */
const labelScore = z.object({ label: z.string(), score: z.number() });

const classification = {
  label: z.string().optional().describe('classification tasks: the top label'),
  score: z.number().optional().describe('classification tasks: its probability'),
  scores: z.array(labelScore).optional().describe('classification tasks: the top-k labels'),
};
const embedding = {
  embedding: z.array(z.number()).optional().describe('embedding tasks: the pooled vector'),
};
const served = {
  model: z.string(),
  version: z.number().int().describe('the model version that answered'),
};
const latencyMs = z.number().describe('time in the router, arrival to answer');
const coldStartMs = z
  .number()
  .optional()
  .describe('present when the version was resident nowhere: the wait for its load (in latencyMs)');

export const predictionSchema = z.object({ ...classification, ...embedding });

export const predictResponseSchema = z.object({
  ...served,
  ...classification,
  ...embedding,
  latencyMs,
  coldStartMs,
});

export const predictBatchResponseSchema = z.object({
  ...served,
  results: z.array(predictionSchema).describe('one per text, in input order'),
  latencyMs,
  coldStartMs,
});

export const tokenizeResponseSchema = z.object({
  ...served,
  pipeline: z.string().describe('pipeline@version'),
  tokens: z.array(z.string()),
  inputIds: z.array(z.number().int()),
  attentionMask: z.array(z.number().int()),
  tokenTypeIds: z.array(z.number().int()),
  truncated: z.boolean(),
  latencyMs,
});

export const taskInfoSchema = z.object({
  task: z.string(),
  model: z.string(),
  kind: z.enum(['classification', 'embedding', 'unknown']),
  versions: z.array(z.number().int()).describe('versions with a positive weight'),
  weightedVersions: z.array(
    z.object({
      version: z.number().int(),
      weight: z.number().describe('relative share of traffic'),
      maxLength: z.number().int().describe('tokens per row kept (longer input is truncated)'),
      hardMaxChars: z.number().int().describe('longest text, in characters (code points)'),
      pairs: z.boolean().describe('takes textPair'),
      labels: z.array(z.string()).describe('classification labels by index; [] for embeddings'),
    }),
  ),
  pairs: z.boolean().describe('some weighted version takes textPair (pairs are routed to those)'),
});

export const tasksResponseSchema = z.object({ tasks: z.array(taskInfoSchema) });

export type PredictJson = z.infer<typeof predictResponseSchema>;
export type PredictionJson = z.infer<typeof predictionSchema>;
export type PredictBatchJson = z.infer<typeof predictBatchResponseSchema>;
