import { RateLimitedError, TooManyInFlightError } from '@mesh/routing';
import { InFlightLimiter } from './in-flight-limiter';

describe('InFlightLimiter', () => {
  const acme = { name: 'acme', maxInFlight: 2 };
  const globex = { name: 'globex', maxInFlight: 1 };

  it('admits up to maxInFlight concurrent requests per tenant, then refuses', () => {
    const limiter = new InFlightLimiter();
    limiter.acquire(acme);
    limiter.acquire(acme);
    expect(() => limiter.acquire(acme)).toThrow(TooManyInFlightError);
    expect(limiter.inFlight('acme')).toBe(2);
  });

  it('frees a slot on release, and a second release of the same permit frees nothing', () => {
    const limiter = new InFlightLimiter();
    const first = limiter.acquire(acme);
    limiter.acquire(acme);
    first();
    first();
    expect(limiter.inFlight('acme')).toBe(1);
    limiter.acquire(acme);
    expect(() => limiter.acquire(acme)).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_IN_FLIGHT', limit: 2 }),
    );
  });

  it('counts tenants separately', () => {
    const limiter = new InFlightLimiter();
    limiter.acquire(globex);
    expect(() => limiter.acquire(globex)).toThrow(TooManyInFlightError);
    expect(() => limiter.acquire(acme)).not.toThrow();
    expect(limiter.inFlight('globex')).toBe(1);
    expect(limiter.inFlight('acme')).toBe(1);
  });
});

describe('RateLimitedError', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [0, 1],
  ])('turns %i ms into Retry-After %i s (never 0)', (ms, seconds) => {
    const err = new RateLimitedError(ms);
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfterSeconds).toBe(seconds);
  });
});
