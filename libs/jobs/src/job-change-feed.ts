import type { RedisClient } from '@mesh/config';
import type { Cluster } from 'ioredis';
import { JobKeys } from './job.keys';

/** One armed wait for a job's next change; dispose it when done (it holds a timer). */
export interface ArmedWait {
  /**
   * Resolves once the job's notices reach this wait (its channel's subscription is active),
   * or subscribing failed (then only the fallback wakes it), or the wait has already ended.
   * Await it before reading: a change published after that is not missed.
   */
  readonly armed: Promise<void>;
  /** Resolves on the job's next change notice, after the fallback interval, or on abort. */
  readonly changed: Promise<void>;
  dispose(): void;
}

/** What the feed uses of its connection: ioredis standalone or Sentinel, or a Cluster. */
interface ShardChannels {
  ssubscribe(channel: string): Promise<unknown>;
  sunsubscribe(channel: string): Promise<unknown>;
  on(event: 'smessage', listener: (channel: string) => void): unknown;
  off(event: 'smessage', listener: (channel: string) => void): unknown;
}

/** One job's channel: its open waits, and its subscription while waits (or the linger) hold it. */
interface Watch {
  readonly wakes: Set<() => void>;
  /** Settles once SSUBSCRIBE has answered, either way, or after the fallback interval. */
  active: Promise<void>;
  /** SSUBSCRIBE failed: the next arm asks again. */
  failed: boolean;
  /** Pending SUNSUBSCRIBE after the last wait went. */
  linger?: NodeJS.Timeout;
}

/** How long a job's channel stays subscribed after its last wait went (a stream re-arms). */
export const DEFAULT_LINGER_MS = 1000;

/**
 * Wakes open result and event streams when their job moves, instead of each polling Redis on
 * a short timer. The job store publishes a notice on the job's sharded channel after every
 * chunk result and state change (SPUBLISH in its scripts, JobRepository); the feed subscribes
 * (SSUBSCRIBE) to a job's channel while streams wait on it, counted per job, and unsubscribes
 * `lingerMs` after the last wait went, so a stream's next arm finds it still active. The
 * channel carries the job's `{job:<id>}` hash tag, so on a Redis Cluster it lives on the shard
 * that holds the job (ADR 0018). A notice can be lost (restart, reconnect, reshard), so every
 * wait also ends after `fallbackMs` and the stream looks anyway: notices make streams prompt,
 * the fallback keeps them correct.
 *
 * Arm, await `armed`, read, then wait on `changed`: a notice published after `armed` resolved
 * is not lost. ioredis subscribes again after a reconnect (standalone, Sentinel) or a topology
 * change it has seen (Cluster with `shardedSubscribers`: a failover at once, a moved slot on
 * its next slots refresh, so give that Cluster a `slotsRefreshInterval`).
 */
export class JobChangeFeed {
  private readonly watches = new Map<string, Watch>();
  private readonly keys: JobKeys;
  private readonly channels: ShardChannels | undefined;
  private closed = false;

  constructor(
    /**
     * A connection of its own (it enters subscriber mode), or undefined to poll only; the
     * caller opens it with the subscriber role and closes it after `close()`. A Cluster needs
     * `shardedSubscribers`, so each SSUBSCRIBE goes to the node that owns the channel's slot.
     */
    subscriber: RedisClient | undefined,
    keyPrefix: string,
    private readonly fallbackMs: number,
    private readonly lingerMs = DEFAULT_LINGER_MS,
  ) {
    if (subscriber && lacksShardedSubscribers(subscriber)) {
      throw new Error(
        'JobChangeFeed: a Redis Cluster subscriber needs shardedSubscribers: true (SSUBSCRIBE)',
      );
    }
    this.keys = new JobKeys(keyPrefix);
    this.channels = subscriber;
    this.channels?.on('smessage', this.onNotice);
  }

  /** Resolves once every job armed so far is subscribed (or its subscribing failed). */
  async ready(): Promise<void> {
    await Promise.all([...this.watches.values()].map((w) => w.active));
  }

  arm(jobId: string, signal: AbortSignal): ArmedWait {
    const channel = this.keys.changes(jobId);
    const watch = this.watch(channel);
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => undefined;
    const changed = new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, this.fallbackMs);
    });
    watch.wakes.add(wake);
    if (signal.aborted) wake();
    else signal.addEventListener('abort', wake, { once: true });
    let disposed = false;
    return {
      armed: Promise.race([watch.active, changed]),
      changed,
      dispose: () => {
        if (disposed) return;
        disposed = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        watch.wakes.delete(wake);
        if (watch.wakes.size === 0) this.release(channel, watch);
      },
    };
  }

  /** Open waits (for tests and shutdown checks). */
  waiting(): number {
    let n = 0;
    for (const watch of this.watches.values()) n += watch.wakes.size;
    return n;
  }

  /**
   * Wakes every open wait, unsubscribes and stops listening; the subscriber connection stays
   * the caller's.
   */
  close(): void {
    this.closed = true;
    for (const [channel, watch] of this.watches) {
      clearTimeout(watch.linger);
      for (const wake of watch.wakes) wake();
      void settle(() => this.channels?.sunsubscribe(channel));
    }
    this.watches.clear();
    this.channels?.off('smessage', this.onNotice);
  }

  /** The job's watch, subscribing when it is new (or its last SSUBSCRIBE failed). */
  private watch(channel: string): Watch {
    const held = this.watches.get(channel);
    if (held) {
      clearTimeout(held.linger);
      held.linger = undefined;
      if (held.failed) this.subscribe(channel, held);
      return held;
    }
    const watch: Watch = { wakes: new Set(), active: Promise.resolve(), failed: false };
    if (!this.closed) this.watches.set(channel, watch);
    this.subscribe(channel, watch);
    return watch;
  }

  private subscribe(channel: string, watch: Watch): void {
    watch.failed = false;
    if (!this.channels || this.closed) return;
    const channels = this.channels;
    const answered = settle(() => channels.ssubscribe(channel)).then((ok) => {
      if (!ok) watch.failed = true;
    });
    // Bounded: a Cluster's SSUBSCRIBE redirected by a moved slot gets no answer (ioredis
    // subscribes the channel on the new owner after its next slots refresh instead).
    watch.active = within(answered, this.fallbackMs);
  }

  private release(channel: string, watch: Watch): void {
    if (this.watches.get(channel) !== watch) return;
    if (this.lingerMs <= 0) {
      this.unsubscribe(channel, watch);
      return;
    }
    watch.linger = setTimeout(() => this.unsubscribe(channel, watch), this.lingerMs);
    watch.linger.unref();
  }

  private unsubscribe(channel: string, watch: Watch): void {
    if (this.watches.get(channel) !== watch || watch.wakes.size > 0) return;
    this.watches.delete(channel);
    // Commands on one connection run in order: a later arm's SSUBSCRIBE follows this one.
    void settle(() => this.channels?.sunsubscribe(channel));
  }

  private readonly onNotice = (channel: string): void => {
    for (const wake of this.watches.get(channel)?.wakes ?? []) wake();
  };
}

/** Runs a command, true once it answered, false if it threw or failed; never rejects. */
async function settle(command: () => Promise<unknown> | undefined): Promise<boolean> {
  try {
    await command();
    return true;
  } catch {
    return false;
  }
}

/** Resolves when `settled` does or after `ms`, whichever comes first. */
function within(settled: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void settled.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A Cluster without sharded subscribers sends SSUBSCRIBE to one node, not the slot's owner. */
function lacksShardedSubscribers(client: object): boolean {
  const c = client as Partial<Pick<Cluster, 'isCluster' | 'options'>>;
  return c.isCluster === true && c.options?.shardedSubscribers !== true;
}
