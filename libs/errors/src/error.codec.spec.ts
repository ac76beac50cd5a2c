import { status as GrpcStatus } from '@grpc/grpc-js';
import { errorBody, errorCodeOf, isRetryable } from './error.codec';
import { MeshError } from './mesh.errors';

class PlanError extends MeshError {
  readonly code = 'INVALID_PLAN';

  constructor(readonly issues: readonly { path: string; message: string }[]) {
    super('rollout plan: 1 problem');
  }
}

class TableMissingError extends MeshError {
  readonly code = 'ROUTING_TABLE_MISSING';

  constructor() {
    super('routing table is not seeded');
  }
}

/** The shapes @mesh/kserve and grpc-js throw, without importing them into the bottom lib. */
const backendError = (grpcCode: GrpcStatus): Error =>
  Object.assign(new Error('10.0.0.7:8001 ModelInfer: down'), {
    code: 'BACKEND_ERROR',
    backend: '10.0.0.7:8001',
    grpcCode,
    grpcMessage: 'model not ready',
  });
const serviceError = (code: GrpcStatus): Error =>
  Object.assign(new Error('14 UNAVAILABLE'), { code, details: 'connect failed' });
const noBackend = (): Error =>
  Object.assign(new Error('no healthy backend at 10.0.0.7'), {
    code: 'BACKEND_UNAVAILABLE',
    details: { backends: { '10.0.0.7:8001': 'open circuit' } },
  });

describe('MeshError', () => {
  it('is an Error named after its class, with its code and message', () => {
    const err = new TableMissingError();
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('TableMissingError');
    expect(err.code).toBe('ROUTING_TABLE_MISSING');
    expect(err.message).toBe('routing table is not seeded');
  });
});

describe('errorCodeOf', () => {
  it.each([
    ['a domain error', new TableMissingError(), 'ROUTING_TABLE_MISSING'],
    ['backend UNAVAILABLE', backendError(GrpcStatus.UNAVAILABLE), 'BACKEND_UNAVAILABLE'],
    ['backend NOT_FOUND', backendError(GrpcStatus.NOT_FOUND), 'BACKEND_UNAVAILABLE'],
    ['backend deadline', backendError(GrpcStatus.DEADLINE_EXCEEDED), 'BACKEND_TIMEOUT'],
    ['backend INVALID_ARGUMENT', backendError(GrpcStatus.INVALID_ARGUMENT), 'BAD_BACKEND_RESPONSE'],
    ['backend unmapped status', backendError(GrpcStatus.DATA_LOSS), 'BAD_BACKEND_RESPONSE'],
    ['grpc-js UNAVAILABLE', serviceError(GrpcStatus.UNAVAILABLE), 'BACKEND_UNAVAILABLE'],
    ['grpc-js DEADLINE', serviceError(GrpcStatus.DEADLINE_EXCEEDED), 'BACKEND_TIMEOUT'],
    ['an unknown string code', Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'INTERNAL'],
    ['a bug', new TypeError('undefined is not a function'), 'INTERNAL'],
    ['a thrown string', 'boom', 'INTERNAL'],
    ['null', null, 'INTERNAL'],
  ])('%s → %s', (_what, err, code) => {
    expect(errorCodeOf(err)).toBe(code);
  });
});

describe('isRetryable', () => {
  it.each([
    ['backend UNAVAILABLE', backendError(GrpcStatus.UNAVAILABLE), true],
    ['backend DEADLINE_EXCEEDED', backendError(GrpcStatus.DEADLINE_EXCEEDED), true],
    ['backend RESOURCE_EXHAUSTED', backendError(GrpcStatus.RESOURCE_EXHAUSTED), true],
    ['no backend could take it', noBackend(), true],
    ['table not seeded yet', new TableMissingError(), true],
    ['backend NOT_FOUND (its own status decides)', backendError(GrpcStatus.NOT_FOUND), false],
    ['backend CANCELLED', backendError(GrpcStatus.CANCELLED), false],
    ['backend INVALID_ARGUMENT', backendError(GrpcStatus.INVALID_ARGUMENT), false],
    ['invalid input', new PlanError([]), false],
    ['a bug', new Error('boom'), false],
  ])('%s → %s', (_what, err, retryable) => {
    expect(isRetryable(err)).toBe(retryable);
  });
});

describe('errorBody', () => {
  it('answers a domain error with its table status and its own fields as details', () => {
    const issues = [{ path: 'steps[2].weight', message: 'must be ≤ 100' }];
    expect(errorBody(new PlanError(issues))).toEqual({
      code: 'INVALID_PLAN',
      status: 400,
      grpc: GrpcStatus.INVALID_ARGUMENT,
      body: {
        error: { code: 'INVALID_PLAN', message: 'rollout plan: 1 problem', details: { issues } },
      },
    });
  });

  it('answers 503 UNAVAILABLE while the routing table is not seeded', () => {
    const reply = errorBody(new TableMissingError());
    expect([reply.status, reply.grpc]).toEqual([503, GrpcStatus.UNAVAILABLE]);
  });

  it('never leaks the message of an internal error', () => {
    expect(errorBody(new Error('password=hunter2 at db.ts:12')).body).toEqual({
      error: { code: 'INTERNAL', message: 'internal error' },
    });
  });

  it('never names a backend', () => {
    for (const err of [backendError(GrpcStatus.INTERNAL), noBackend(), serviceError(14)]) {
      const text = JSON.stringify(errorBody(err).body);
      expect(text).not.toContain('10.0.0.7');
    }
    expect(errorBody(noBackend()).body.error.message).toBe('no backend could serve the request');
  });

  it('takes a code the edge refined', () => {
    const reply = errorBody(
      Object.assign(new Error('Cannot GET /x'), { status: 404 }),
      'NOT_FOUND',
    );
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Cannot GET /x' } });
  });
});
