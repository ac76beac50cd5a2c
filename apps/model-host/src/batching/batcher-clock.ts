/**
 * Time as the dynamic batcher sees it: the queue delay and request timeouts are its behaviour,
 * so tests drive them with a manual clock instead of sleeping.
 */
export interface BatcherClock {
  /** Monotonic nanoseconds. */
  nowNs(): bigint;
  /** Calls `fn` once after `ms` milliseconds; the handle cancels it. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemBatcherClock: BatcherClock = {
  nowNs: () => process.hrtime.bigint(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
