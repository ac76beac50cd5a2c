import { z } from 'zod';
import type { ApiDocs } from '../openapi/api-docs';
import { predictBatchSchema, predictSchema } from './request.schema';
import {
  predictBatchResponseSchema,
  predictResponseSchema,
  tasksResponseSchema,
  tokenizeResponseSchema,
} from './response.schema';

const stickyHeaders = z.object({
  'x-mesh-sticky-key': z
    .string()
    .max(256)
    .optional()
    .describe('same key, same version while the route’s weights hold'),
  traceparent: z.string().optional().describe('W3C trace context, passed to the backend'),
});

/** The public predict API (`PredictController`). */
export function describePredictApi(docs: ApiDocs): void {
  const predictRequest = docs.schema('PredictRequest', predictSchema);
  const routed = [
    'TASK_NOT_FOUND',
    'BACKEND_UNAVAILABLE',
    'MODEL_LOADING',
    'BACKEND_TIMEOUT',
  ] as const;
  const admitted = ['RATE_LIMITED', 'TOO_MANY_IN_FLIGHT'] as const;
  docs.operation({
    method: 'post',
    path: '/v1/predict',
    tag: 'predict',
    summary: 'Predict one text (or text pair)',
    description:
      'Routes to one of the task’s weighted versions that can serve the input (a pair only ' +
      'goes to versions whose pipeline takes pairs), tokenizes with that version’s pinned ' +
      'pipeline and answers its labels and scores, or its embedding.',
    auth: 'tenant',
    headers: stickyHeaders,
    body: predictRequest,
    response: {
      description: 'the prediction',
      schema: docs.schema('PredictResponse', predictResponseSchema),
    },
    errors: [...routed, ...admitted, 'TEXT_TOO_LONG', 'BAD_BACKEND_RESPONSE', 'INTERNAL'],
  });
  docs.operation({
    method: 'post',
    path: '/v1/predict:batch',
    tag: 'predict',
    summary: 'Predict several texts with one version',
    description: 'Results in input order; one version answers the whole batch.',
    auth: 'tenant',
    headers: stickyHeaders,
    body: docs.schema('PredictBatchRequest', predictBatchSchema),
    response: {
      description: 'one prediction per text, in order',
      schema: docs.schema('PredictBatchResponse', predictBatchResponseSchema),
    },
    errors: [
      ...routed,
      ...admitted,
      'TEXT_TOO_LONG',
      'BATCH_TOO_LARGE',
      'BAD_BACKEND_RESPONSE',
      'INTERNAL',
    ],
  });
  docs.operation({
    method: 'post',
    path: '/v1/tokenize',
    tag: 'predict',
    summary: 'Show what the model would see for a text',
    auth: 'tenant',
    headers: stickyHeaders,
    // Tokenize takes the predict body.
    body: predictRequest,
    response: {
      description: 'tokens and the three input tensors of one row',
      schema: docs.schema('TokenizeResponse', tokenizeResponseSchema),
    },
    errors: [...routed, ...admitted, 'TEXT_TOO_LONG', 'INTERNAL'],
  });
  docs.operation({
    method: 'get',
    path: '/v1/tasks',
    tag: 'predict',
    summary: 'List the tasks this key may call',
    description: 'With each task’s model, kind and weighted versions.',
    auth: 'tenant',
    response: {
      description: 'the tasks, sorted by name',
      schema: docs.schema('TasksResponse', tasksResponseSchema),
    },
    errors: ['INTERNAL'],
  });
}
