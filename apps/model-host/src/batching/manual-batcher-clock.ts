import type { BatcherClock } from './batcher-clock';

interface PendingTimer {
  at: bigint;
  fn: () => void;
}

/** A clock that moves only when told to; due timers fire in order as it advances. */
export class ManualBatcherClock implements BatcherClock {
  private ns = 0n;
  private readonly timers = new Set<PendingTimer>();

  nowNs(): bigint {
    return this.ns;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { at: this.ns + BigInt(Math.round(ms * 1e6)), fn };
    this.timers.add(timer);
    return timer;
  }

  clearTimer(handle: unknown): void {
    this.timers.delete(handle as PendingTimer);
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing each timer that comes due, earliest first. */
  advance(ms: number): void {
    const target = this.ns + BigInt(Math.round(ms * 1e6));
    for (;;) {
      const due = [...this.timers]
        .filter((t) => t.at <= target)
        .sort((a, b) => (a.at < b.at ? -1 : 1));
      const next = due[0];
      if (!next) break;
      this.timers.delete(next);
      this.ns = next.at;
      next.fn();
    }
    this.ns = target;
  }
}
