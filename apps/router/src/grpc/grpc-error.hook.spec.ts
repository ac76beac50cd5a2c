import { status as GrpcStatus } from '@grpc/grpc-js';
import { RateLimitedError, TooManyInFlightError } from '@mesh/routing';
import { toGrpcError } from './grpc-error.hook';

describe('toGrpcError', () => {
  it('tells a refused caller when to retry in both retry-after and grpc-retry-pushback-ms', () => {
    const limited = toGrpcError(new RateLimitedError(1234));
    expect(limited.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(limited.metadata.get('x-mesh-error-code')).toEqual(['RATE_LIMITED']);
    expect(limited.metadata.get('retry-after')).toEqual(['2']);
    expect(limited.metadata.get('grpc-retry-pushback-ms')).toEqual(['1234']);

    const busy = toGrpcError(new TooManyInFlightError(16));
    expect(busy.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(busy.metadata.get('retry-after')).toEqual(['1']);
    expect(busy.metadata.get('grpc-retry-pushback-ms')).toEqual(['1000']);
  });

  it('sends no pushback for errors a retry cannot fix', () => {
    const bad = toGrpcError(new Error('boom'));
    expect(bad.code).toBe(GrpcStatus.INTERNAL);
    expect(bad.metadata.get('grpc-retry-pushback-ms')).toEqual([]);
    expect(bad.metadata.get('retry-after')).toEqual([]);
  });
});
