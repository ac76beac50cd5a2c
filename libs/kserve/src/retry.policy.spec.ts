import { backoffDelay, runWithRetries, type RetryOptions } from './retry.policy';

const opts: RetryOptions = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 };

describe('backoffDelay', () => {
  it('draws uniformly below an exponentially growing, capped ceiling', () => {
    expect(backoffDelay(0, opts, () => 0.999)).toBe(99);
    expect(backoffDelay(1, opts, () => 0.999)).toBe(199);
    expect(backoffDelay(2, opts, () => 0.999)).toBe(249);
    expect(backoffDelay(10, opts, () => 0.5)).toBe(125);
    expect(backoffDelay(3, opts, () => 0)).toBe(0);
  });

  it('spreads delays (jitter) rather than repeating one value', () => {
    const seen = new Set(Array.from({ length: 50 }, () => backoffDelay(2, opts)));
    expect(seen.size).toBeGreaterThan(10);
  });
});

describe('runWithRetries', () => {
  const sleeps: number[] = [];
  const base = {
    options: opts,
    sleep: async (ms: number) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => 0,
    deadlineAt: 10_000,
  };
  beforeEach(() => (sleeps.length = 0));

  it('retries retryable failures with backoff until success', async () => {
    let calls = 0;
    const result = await runWithRetries({
      ...base,
      attempt: async (n) => {
        calls++;
        if (n < 3) throw new Error('transient');
        return n;
      },
      shouldRetry: () => true,
    });
    expect(result).toBe(3);
    expect(calls).toBe(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it('stops at maxAttempts and rethrows the last error', async () => {
    let calls = 0;
    await expect(
      runWithRetries({
        ...base,
        attempt: async (n) => {
          calls++;
          throw new Error(`fail ${n}`);
        },
        shouldRetry: () => true,
      }),
    ).rejects.toThrow('fail 4');
    expect(calls).toBe(4);
  });

  it('does not retry a non-retryable failure', async () => {
    let calls = 0;
    await expect(
      runWithRetries({
        ...base,
        attempt: async () => {
          calls++;
          throw new Error('permanent');
        },
        shouldRetry: () => false,
      }),
    ).rejects.toThrow('permanent');
    expect(calls).toBe(1);
  });

  it('never sleeps past the deadline', async () => {
    let calls = 0;
    await expect(
      runWithRetries({
        ...base,
        deadlineAt: 40,
        attempt: async () => {
          calls++;
          throw new Error('slow');
        },
        shouldRetry: () => true,
      }),
    ).rejects.toThrow('slow');
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
  });
});
