import type Redis from 'ioredis';
import { JobKeys } from './job.keys';

/** One armed wait for a job's next change; dispose it when done (it holds a timer). */
export interface ArmedWait {
  /** Resolves on the job's next change notice, after the fallback interval, or on abort. */
  readonly changed: Promise<void>;
  dispose(): void;
}

/**
 * Wakes open result and event streams when their job moves, instead of each polling Redis on
 * a short timer. The job store publishes a notice on the job's channel after every chunk
 * result and state change (JobRepository); one subscriber connection per router receives them
 * all (a pattern subscription) and wakes the streams waiting on that job. A notice can be
 * lost (Redis restart, reconnect), so every wait also ends after `fallbackMs` and the stream
 * looks anyway: notices make streams prompt, the fallback keeps them correct.
 *
 * Arm before reading, wait after: a notice published between the read and the wait is not lost.
 */
export class JobChangeFeed {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly keys: JobKeys;
  private readonly subscribed: Promise<void>;

  constructor(
    /**
     * A connection of its own (it enters subscriber mode), or undefined to poll only; the
     * caller opens it with the subscriber role and closes it after `close()`.
     */
    private readonly subscriber: Redis | undefined,
    keyPrefix: string,
    private readonly fallbackMs: number,
  ) {
    this.keys = new JobKeys(keyPrefix);
    subscriber?.on('pmessage', this.onNotice);
    // ioredis queues this until connected and subscribes again after every reconnect.
    this.subscribed = subscriber
      ? subscriber.psubscribe(this.keys.changesPattern()).then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
  }

  /** Resolves once notices are delivered (the subscription is active). */
  ready(): Promise<void> {
    return this.subscribed;
  }

  arm(jobId: string, signal: AbortSignal): ArmedWait {
    const channel = this.keys.changes(jobId);
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, this.fallbackMs);
    });
    const set = this.waiters.get(channel) ?? new Set();
    set.add(wake);
    this.waiters.set(channel, set);
    if (signal.aborted) wake();
    else signal.addEventListener('abort', wake, { once: true });
    return {
      changed,
      dispose: () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(channel) === set) this.waiters.delete(channel);
      },
    };
  }

  /** Open waits (for tests and shutdown checks). */
  waiting(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  /** Wakes every open wait and stops listening; the subscriber connection stays the caller's. */
  close(): void {
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.subscriber?.off('pmessage', this.onNotice);
  }

  private readonly onNotice = (_pattern: string, channel: string): void => {
    for (const wake of this.waiters.get(channel) ?? []) wake();
  };
}
