import {
  ExponentialBackoff,
  handleWhen,
  noJitterGenerator,
  retry,
  type GeneratorFn,
  type IBackoff,
} from 'cockatiel';

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
 * "Full jitter" exponential backoff: the nth retry (n from 0) waits uniformly in
 * [0, min(max, base·2^n)), which spreads the retries of many clients instead of synchronising
 * them. Cockatiel's fullJitterGenerator, with the random source injectable.
 */
export function fullJitterBackoff(
  opts: RetryOptions,
  random: () => number = Math.random,
): ExponentialBackoff<number> {
  const generator: GeneratorFn<number> = (state, options) => {
    const [cap, next] = noJitterGenerator(state, options);
    return [Math.floor(random() * cap), next];
  };
  return new ExponentialBackoff({
    generator,
    initialDelay: opts.baseDelayMs,
    maxDelay: opts.maxDelayMs,
  });
}

export interface RetryRun<T> {
  /** One attempt; `attempt` starts at 1. */
  attempt: (attempt: number) => Promise<T>;
  /** Whether a failed attempt may be repeated (never asked about the last one). */
  shouldRetry: (err: unknown, attempt: number) => boolean;
  /** Absolute deadline (epoch ms); no retry starts or sleeps past it. */
  deadlineAt: number;
  options: RetryOptions;
  random?: () => number;
  now?: () => number;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

/** Runs `attempt` until it succeeds, a failure is not retryable, attempts or time run out. */
export async function runWithRetries<T>(run: RetryRun<T>): Promise<T> {
  const now = run.now ?? Date.now;
  const schedule = fullJitterBackoff(run.options, run.random);
  let attempt = 0;
  // Cockatiel draws a retry's pause once it has decided to retry, but whether the pause still
  // fits before the deadline decides whether to retry at all: the filter draws the pause and the
  // policy's backoff hands that same one over.
  let pause: IBackoff<unknown> | undefined;
  const drawn: IBackoff<unknown> = {
    get duration() {
      return pause?.duration ?? 0;
    },
    next: () => drawn,
  };
  const policy = retry(
    handleWhen((err) => {
      if (attempt >= run.options.maxAttempts || !run.shouldRetry(err, attempt)) return false;
      pause = pause ? pause.next(undefined) : schedule.next();
      // Leave at least a sliver of the deadline for the next attempt itself.
      return now() + pause.duration < run.deadlineAt - 1;
    }),
    { maxAttempts: run.options.maxAttempts - 1, backoff: drawn },
  );
  const onRetry = run.onRetry;
  if (onRetry) {
    policy.onRetry((e) => onRetry('error' in e ? e.error : e.value, e.attempt, e.delay));
  }
  return policy.execute(() => run.attempt(++attempt));
}
