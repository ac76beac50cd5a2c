import fc from 'fast-check';
import { edgeNumber } from './fuzz.values';

/** The host under fuzz: its two inference listeners. */
export interface HostFuzzEndpoints {
  /** KServe v2 HTTP base URL. */
  http: string;
  /** `host:port` of the KServe v2 gRPC listener. */
  grpc: string;
}

/** Demo models, their inputs, and the datatypes a confused client might claim. */
export const MODELS = ['question-type-zh', 'intent-zh', 'sentiment-en', 'text-embed-zh'];
export const INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'];
export const DATATYPES = [
  'INT64',
  'INT32',
  'FP32',
  'FP16',
  'BF16',
  'BYTES',
  'BOOL',
  'UINT8',
  'FP64',
];

export const modelName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...MODELS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
export const version = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.constantFrom('1', '2', '3') },
  { weight: 1, arbitrary: fc.constantFrom('0', '-1', '99', '1.5', 'latest', '9'.repeat(30)) },
);
export const datatype = fc.oneof(
  { weight: 8, arbitrary: fc.constant('INT64') },
  { weight: 2, arbitrary: fc.constantFrom(...DATATYPES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
/** Mostly a sane [rows, length]; sometimes negative, zero, huge or of the wrong rank. */
export const shape = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 16 })),
  },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(fc.integer({ min: -3, max: 70 }), fc.constantFrom(2 ** 31, 2 ** 40, 2 ** 53)),
      { maxLength: 4 },
    ),
  },
);
/** Token ids: mostly in a small vocabulary, sometimes out of it or not integers at all. */
export const tokenId = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 200 }) },
  { weight: 1, arbitrary: edgeNumber },
);
