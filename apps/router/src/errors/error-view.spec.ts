import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  AdminForbiddenError,
  EpochConflictError,
  NoRoutableVersionError,
  RateLimitedError,
  RouteEditRejectedError,
  RouteNotFoundError,
  RoutingEntryNotFoundError,
  RoutingTableMissingError,
  RoutingValidationError,
  TooManyInFlightError,
  UnauthenticatedError,
} from '@mesh/routing';
import {
  EmptyJobError,
  JobInputError,
  JobNotFoundError,
  JobQuotaExceededError,
  JobTooLargeError,
} from '@mesh/jobs';
import { InputTooLargeError, InputValidationError, OutputShapeError } from '@mesh/preprocessing';
import { PayloadTooLargeError } from '@mesh/telemetry';
import { BadBackendResponseError } from '@mesh/inference';
import { describeError, errorBody } from './error-view';
import { BatchTooLargeError, CallCancelledError, RequestValidationError } from './router.errors';

const cases: [string, unknown, string, number, GrpcStatus][] = [
  [
    'bad request body',
    new RequestValidationError([{ path: 'task', message: 'is required' }]),
    'INVALID_ARGUMENT',
    400,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'unusable text',
    new InputValidationError('not text'),
    'INVALID_INPUT',
    400,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'bad admin edit',
    new RoutingValidationError('route', [{ path: 'model', message: 'x' }]),
    'INVALID_ROUTING_CONFIG',
    400,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  ['missing key', new UnauthenticatedError(), 'UNAUTHENTICATED', 401, GrpcStatus.UNAUTHENTICATED],
  [
    'non-admin key on admin API',
    new AdminForbiddenError(),
    'ADMIN_FORBIDDEN',
    403,
    GrpcStatus.PERMISSION_DENIED,
  ],
  ['unknown task', new RouteNotFoundError('nope'), 'TASK_NOT_FOUND', 404, GrpcStatus.NOT_FOUND],
  [
    'unknown admin entry',
    new RoutingEntryNotFoundError('route', 'a/b'),
    'NOT_FOUND',
    404,
    GrpcStatus.NOT_FOUND,
  ],
  ['caller left', new CallCancelledError(), 'CLIENT_CLOSED', 499, GrpcStatus.CANCELLED],
  ['stale epoch', new EpochConflictError(1, 2), 'EPOCH_CONFLICT', 409, GrpcStatus.ABORTED],
  [
    'body over limit',
    new PayloadTooLargeError(10),
    'PAYLOAD_TOO_LARGE',
    413,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'text over hardMaxChars',
    new InputTooLargeError('text', 0, 30, 20),
    'TEXT_TOO_LONG',
    413,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'batch over bound',
    new BatchTooLargeError(300, 256),
    'BATCH_TOO_LARGE',
    413,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'bad job line',
    new JobInputError('line 3: not valid JSON', 3),
    'INVALID_INPUT',
    400,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  ['empty job', new EmptyJobError(), 'INVALID_INPUT', 400, GrpcStatus.INVALID_ARGUMENT],
  [
    'job over its cap',
    new JobTooLargeError(10, 'items'),
    'PAYLOAD_TOO_LARGE',
    413,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'job quota',
    new JobQuotaExceededError('maxConcurrentJobs', 2, 'too many'),
    'JOB_QUOTA_EXCEEDED',
    429,
    GrpcStatus.RESOURCE_EXHAUSTED,
  ],
  ['unknown job', new JobNotFoundError('j'), 'JOB_NOT_FOUND', 404, GrpcStatus.NOT_FOUND],
  ['rate limited', new RateLimitedError(1500), 'RATE_LIMITED', 429, GrpcStatus.RESOURCE_EXHAUSTED],
  ...(
    [
      'UNKNOWN_MODEL',
      'MODEL_CONFIG_INVALID',
      'UNKNOWN_VERSION',
      'VERSION_NOT_SELECTED',
      'MANIFEST_INVALID',
    ] as const
  ).map((code): [string, unknown, string, number, GrpcStatus] => [
    `route edit refused: ${code}`,
    new RouteEditRejectedError([{ code, path: 'versions[0].version', message: 'why' }]),
    code,
    422,
    GrpcStatus.FAILED_PRECONDITION,
  ]),
  [
    'too many in flight',
    new TooManyInFlightError(4),
    'TOO_MANY_IN_FLIGHT',
    429,
    GrpcStatus.RESOURCE_EXHAUSTED,
  ],
  [
    'no routable version',
    new NoRoutableVersionError('m', [{ version: 1, reason: 'sha mismatch' }]),
    'BACKEND_UNAVAILABLE',
    503,
    GrpcStatus.UNAVAILABLE,
  ],
  [
    'table not seeded',
    new RoutingTableMissingError(),
    'ROUTING_TABLE_MISSING',
    503,
    GrpcStatus.UNAVAILABLE,
  ],
  [
    'backend answered garbage',
    new BadBackendResponseError('x'),
    'BAD_BACKEND_RESPONSE',
    502,
    GrpcStatus.INTERNAL,
  ],
  [
    'output shape wrong',
    new OutputShapeError('x'),
    'OUTPUT_SHAPE_MISMATCH',
    502,
    GrpcStatus.INTERNAL,
  ],
  [
    'backend UNAVAILABLE',
    Object.assign(new Error('x'), { code: GrpcStatus.UNAVAILABLE, details: 'down' }),
    'BACKEND_UNAVAILABLE',
    503,
    GrpcStatus.UNAVAILABLE,
  ],
  [
    'backend deadline',
    Object.assign(new Error('x'), { code: GrpcStatus.DEADLINE_EXCEEDED, details: 'slow' }),
    'BACKEND_TIMEOUT',
    504,
    GrpcStatus.DEADLINE_EXCEEDED,
  ],
  [
    'fastify body too large',
    Object.assign(new Error('big'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }),
    'PAYLOAD_TOO_LARGE',
    413,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'fastify bad JSON',
    Object.assign(new SyntaxError('Unexpected token'), { statusCode: 400 }),
    'INVALID_JSON',
    400,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'fastify wrong content type',
    Object.assign(new Error('ct'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }),
    'UNSUPPORTED_MEDIA_TYPE',
    415,
    GrpcStatus.INVALID_ARGUMENT,
  ],
  [
    'unknown HTTP route',
    Object.assign(new Error('Cannot GET /x'), { status: 404 }),
    'ROUTE_NOT_FOUND',
    404,
    GrpcStatus.NOT_FOUND,
  ],
  ['a bug', new TypeError('undefined is not a function'), 'INTERNAL', 500, GrpcStatus.INTERNAL],
  ['a thrown string', 'boom', 'INTERNAL', 500, GrpcStatus.INTERNAL],
];

describe('describeError', () => {
  const rows = cases.map(([what, err, code, http, grpc]) => ({ what, err, code, http, grpc }));

  it.each(rows)('$what → $code, HTTP $http, gRPC $grpc', ({ err, code, http, grpc }) => {
    const view = describeError(err);
    expect(view.code).toBe(code);
    expect({ http: view.mapping.http, grpc: view.mapping.grpc }).toEqual({ http, grpc });
  });

  it('never leaks the message of an internal error', () => {
    const body = errorBody(describeError(new Error('password=hunter2 at db.ts:12')));
    expect(body).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
  });

  it('carries retry-after seconds and the domain fields as details', () => {
    const view = describeError(new RateLimitedError(1200));
    expect(view.retryAfterSeconds).toBe(2);
    const unroutable = describeError(
      new NoRoutableVersionError('m', [{ version: 2, reason: 'tokenizer sha256 differs' }]),
    );
    expect(errorBody(unroutable).error.details).toEqual({
      model: 'm',
      reasons: [{ version: 2, reason: 'tokenizer sha256 differs' }],
    });
    expect(unroutable.message).toContain('v2: tokenizer sha256 differs');
  });

  it('answers 503 STORE_UNAVAILABLE with a retry hint when Redis does not answer', () => {
    for (const err of [
      new Error('Command timed out'),
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ]) {
      const view = describeError(err);
      expect(view.code).toBe('STORE_UNAVAILABLE');
      expect([view.mapping.http, view.mapping.grpc]).toEqual([503, GrpcStatus.UNAVAILABLE]);
      expect(view.retryAfterSeconds).toBe(5);
      expect(errorBody(view).error.message).not.toContain('timed out');
    }
  });

  it('keeps validation issues as details', () => {
    const body = errorBody(
      describeError(
        new RequestValidationError([{ path: 'texts[3]', message: 'must be a string' }]),
      ),
    );
    expect(body.error).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'invalid request: texts[3]: must be a string',
      details: { issues: [{ path: 'texts[3]', message: 'must be a string' }] },
    });
  });

  it('lists the first issues in the message and every one in details', () => {
    const issues = Array.from({ length: 7 }, (_, i) => ({
      path: `texts[${i}]`,
      message: 'must not be empty',
    }));
    const body = errorBody(describeError(new RequestValidationError(issues)));
    expect(body.error.message).toBe(
      'invalid request: 7 problems: texts[0]: must not be empty; texts[1]: must not be empty; ' +
        'texts[2]: must not be empty; texts[3]: must not be empty; texts[4]: must not be empty; 2 more',
    );
    expect(body.error.details).toEqual({ issues });
  });
});
