import { status } from '@grpc/grpc-js';
import { ERROR_STATUS } from './error-status-map';
import { HostError, toHostError } from './model-host.errors';

describe('ERROR_STATUS', () => {
  it.each([
    ['INVALID_ARGUMENT', status.INVALID_ARGUMENT, 400],
    ['NOT_FOUND', status.NOT_FOUND, 404],
    ['UNAVAILABLE', status.UNAVAILABLE, 503],
    ['RESOURCE_EXHAUSTED', status.RESOURCE_EXHAUSTED, 413],
    ['UNIMPLEMENTED', status.UNIMPLEMENTED, 501],
    ['CANCELLED', status.CANCELLED, 499],
    ['INTERNAL', status.INTERNAL, 500],
  ] as const)('maps %s to gRPC %i and HTTP %i', (code, grpc, http) => {
    expect(ERROR_STATUS[code]).toEqual({ grpc, http });
  });

  it('maps codec errors carrying INVALID_ARGUMENT and unknown errors to INTERNAL', () => {
    const codec = Object.assign(new Error('bad tensor'), { code: 'INVALID_ARGUMENT' });
    expect(toHostError(codec).code).toBe('INVALID_ARGUMENT');
    expect(toHostError(new Error('boom')).code).toBe('INTERNAL');
    const own = new HostError('NOT_FOUND', 'x');
    expect(toHostError(own)).toBe(own);
  });
});
