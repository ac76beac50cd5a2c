import {
  fullJitterBackoff,
  runWithRetries,
  type RetryOptions,
  type RetryRun,
} from './retry-policy';

const opts: RetryOptions = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 };

/** The first `n` pauses of a backoff. */
function pauses(backoff: ReturnType<typeof fullJitterBackoff>, n: number): number[] {
  const out: number[] = [];
  let b = backoff.next();
  for (let i = 0; i < n; i++, b = b.next(undefined)) out.push(b.duration);
  return out;
}

describe('fullJitterBackoff', () => {
  it('draws uniformly below an exponentially growing, capped ceiling', () => {
    expect(
      pauses(
        fullJitterBackoff(opts, () => 0.999),
        4,
      ),
    ).toEqual([99, 199, 249, 249]);
    expect(
      pauses(
        fullJitterBackoff(opts, () => 0.5),
        11,
      )[10],
    ).toBe(125);
    expect(
      pauses(
        fullJitterBackoff(opts, () => 0),
        4,
      ),
    ).toEqual([0, 0, 0, 0]);
  });

  it('spreads delays (jitter) rather than repeating one value', () => {
    const seen = new Set(Array.from({ length: 50 }, () => pauses(fullJitterBackoff(opts), 3)[2]));
    expect(seen.size).toBeGreaterThan(10);
  });
});

describe('runWithRetries', () => {
  const retries: Array<{ attempt: number; delayMs: number }> = [];
  const base = {
    options: opts,
    random: () => 0.5,
    now: () => 0,
    deadlineAt: 10_000,
    onRetry: (_err: unknown, attempt: number, delayMs: number) =>
      void retries.push({ attempt, delayMs }),
  };
  beforeEach(() => {
    retries.length = 0;
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  /** Runs to the end, letting the backoff timers fire. */
  async function settle<T>(run: RetryRun<T>): Promise<{ value?: T; error?: unknown }> {
    const outcome = runWithRetries(run).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await jest.runAllTimersAsync();
    return outcome;
  }

  it('retries retryable failures with backoff until success', async () => {
    let calls = 0;
    const outcome = await settle({
      ...base,
      attempt: async (n) => {
        calls++;
        if (n < 3) throw new Error('transient');
        return n;
      },
      shouldRetry: () => true,
    });
    expect(outcome).toEqual({ value: 3 });
    expect(calls).toBe(3);
    expect(retries).toEqual([
      { attempt: 1, delayMs: 50 },
      { attempt: 2, delayMs: 100 },
    ]);
  });

  it('stops at maxAttempts and rethrows the last error, never asking about the last one', async () => {
    const asked: number[] = [];
    const outcome = await settle({
      ...base,
      attempt: async (n) => {
        throw new Error(`fail ${n}`);
      },
      shouldRetry: (_err, n) => {
        asked.push(n);
        return true;
      },
    });
    expect((outcome.error as Error).message).toBe('fail 4');
    expect(asked).toEqual([1, 2, 3]);
  });

  it('does not retry a non-retryable failure', async () => {
    let calls = 0;
    const outcome = await settle({
      ...base,
      attempt: async () => {
        calls++;
        throw new Error('permanent');
      },
      shouldRetry: () => false,
    });
    expect((outcome.error as Error).message).toBe('permanent');
    expect(calls).toBe(1);
  });

  it('never sleeps past the deadline', async () => {
    let calls = 0;
    const outcome = await settle({
      ...base,
      deadlineAt: 40,
      attempt: async () => {
        calls++;
        throw new Error('slow');
      },
      shouldRetry: () => true,
    });
    expect((outcome.error as Error).message).toBe('slow');
    expect(calls).toBe(1);
    expect(retries).toEqual([]);
  });

  it('makes a single attempt when retries are off', async () => {
    let calls = 0;
    const outcome = await settle({
      ...base,
      options: { ...opts, maxAttempts: 1 },
      attempt: async () => {
        calls++;
        throw new Error('once');
      },
      shouldRetry: () => true,
    });
    expect((outcome.error as Error).message).toBe('once');
    expect(calls).toBe(1);
  });
});
