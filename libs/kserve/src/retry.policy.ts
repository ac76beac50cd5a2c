export interface RetryOptions {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  /** Backoff cap for the first retry; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of any single backoff. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = {
  maxAttempts: 3,
  baseDelayMs: 25,
  maxDelayMs: 1000,
};

/**
 * "Full jitter" exponential backoff: uniform in [0, min(max, base·2^n)).
 * Spreads retries of many clients instead of synchronising them.
 * `retry` is 0 for the first retry.
 */
export function backoffDelay(
  retry: number,
  opts: RetryOptions,
  random: () => number = Math.random,
): number {
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** retry);
  return Math.floor(random() * cap);
}

export interface RetryRun<T> {
  /** One attempt; `attempt` starts at 1. */
  attempt: (attempt: number) => Promise<T>;
  /** Whether a failed attempt may be repeated. */
  shouldRetry: (err: unknown, attempt: number) => boolean;
  /** Absolute deadline (epoch ms); no retry starts or sleeps past it. */
  deadlineAt: number;
  options: RetryOptions;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` until it succeeds, a failure is not retryable, attempts or time run out. */
export async function runWithRetries<T>(run: RetryRun<T>): Promise<T> {
  const sleep = run.sleep ?? defaultSleep;
  const now = run.now ?? Date.now;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run.attempt(attempt);
    } catch (err: unknown) {
      if (attempt >= run.options.maxAttempts || !run.shouldRetry(err, attempt)) throw err;
      const delay = backoffDelay(attempt - 1, run.options, run.random);
      // Leave at least a sliver of the deadline for the next attempt itself.
      if (now() + delay >= run.deadlineAt - 1) throw err;
      run.onRetry?.(err, attempt, delay);
      await sleep(delay);
    }
  }
}
