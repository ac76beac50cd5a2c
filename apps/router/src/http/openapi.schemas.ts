import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const str = (description?: string): SchemaObject => ({
  type: 'string',
  ...(description ? { description } : {}),
});
const int: SchemaObject = { type: 'integer' };
const num: SchemaObject = { type: 'number' };
const labelScore: SchemaObject = {
  type: 'object',
  properties: { label: str(), score: num },
  required: ['label', 'score'],
};
const prediction: SchemaObject = {
  type: 'object',
  description: 'classification tasks: label, score, scores (top-k); embedding tasks: embedding',
  properties: {
    label: str(),
    score: num,
    scores: { type: 'array', items: labelScore },
    embedding: { type: 'array', items: num },
  },
};

/** Hand-written OpenAPI shapes of the JSON API (the zod schemas stay the validators). */
export const OPENAPI = {
  predictRequest: {
    type: 'object',
    required: ['task', 'text'],
    properties: {
      task: str('task name, see GET /v1/tasks'),
      text: str(),
      textPair: str('second segment for pair tasks'),
    },
  },
  predictResponse: {
    type: 'object',
    properties: {
      model: str(),
      version: int,
      ...prediction.properties,
      latencyMs: num,
    },
  },
  predictBatchRequest: {
    type: 'object',
    required: ['task', 'texts'],
    properties: {
      task: str(),
      texts: { type: 'array', items: str(), minItems: 1, maxItems: 256 },
    },
  },
  predictBatchResponse: {
    type: 'object',
    properties: {
      model: str(),
      version: int,
      results: { type: 'array', items: prediction, description: 'same order as texts' },
      latencyMs: num,
    },
  },
  tokenizeRequest: {
    type: 'object',
    required: ['task', 'text'],
    properties: { task: str(), text: str(), textPair: str() },
  },
  tokenizeResponse: {
    type: 'object',
    properties: {
      model: str(),
      version: int,
      pipeline: str('pipeline@version'),
      tokens: { type: 'array', items: str() },
      inputIds: { type: 'array', items: int },
      attentionMask: { type: 'array', items: int },
      tokenTypeIds: { type: 'array', items: int },
      truncated: { type: 'boolean' },
      latencyMs: num,
    },
  },
  tasksResponse: {
    type: 'object',
    properties: {
      tasks: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            task: str(),
            model: str(),
            kind: str('classification | embedding'),
            versions: { type: 'array', items: int },
          },
        },
      },
    },
  },
  error: {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: str(), message: str(), details: { type: 'object' } },
      },
    },
  },
} satisfies Record<string, SchemaObject>;
