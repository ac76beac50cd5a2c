import { ModelUnavailableError, RequestCancelledError } from '../core/model-host.errors';
import { systemBatcherClock, type BatcherClock } from './batcher.clock';
import type { BatchRunner, BatchingPolicy, QueuePolicy, QueuedItem } from './batching.types';

/** Queued requests (after the oldest) considered for closeness in length per batch. */
export const LENGTH_WINDOW = 256;

export interface DynamicBatcherOptions<T> {
  /** Called for each request dropped because its queue timeout expired. */
  onExpired?: (item: QueuedItem<T>) => void;
  /** Called for each request removed because its caller left before it was dispatched. */
  onAbandoned?: (item: QueuedItem<T>) => void;
  clock?: BatcherClock;
}

/**
 * Triton-style dynamic batcher for one model version. A batch is formed only when an instance
 * is free, so under load the queue grows and batches grow with it. A batch goes out at once
 * when it is full or reaches a preferred size; otherwise it waits until the oldest request has
 * queued for max_queue_delay — unless the policy dispatches when idle, then a free instance
 * takes what is queued at once. Lower priority numbers are served first; each level keeps FIFO.
 */
export class DynamicBatcher<T> {
  private readonly levels = new Map<number, QueuedItem<T>[]>();
  private busy = 0;
  /** Rows of the batches in flight (for balance_instances). */
  private busyRows = 0;
  /** Batches below the top priority level in flight. */
  private busyLow = 0;
  /** When the last top-priority request arrived (ns), for the instance reservation. */
  private lastTopNs?: bigint;
  private timer: unknown;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private readonly onExpired: (item: QueuedItem<T>) => void;
  private readonly onAbandoned: (item: QueuedItem<T>) => void;
  private readonly clock: BatcherClock;

  constructor(
    private readonly policy: BatchingPolicy,
    private readonly slots: () => number,
    private readonly runBatch: BatchRunner<T>,
    options: DynamicBatcherOptions<T> = {},
  ) {
    this.onExpired = options.onExpired ?? (() => undefined);
    this.onAbandoned = options.onAbandoned ?? (() => undefined);
    this.clock = options.clock ?? systemBatcherClock;
  }

  /** Requests waiting (not yet in a batch). */
  get queued(): number {
    let n = 0;
    for (const q of this.levels.values()) n += q.length;
    return n;
  }

  get inFlightBatches(): number {
    return this.busy;
  }

  /**
   * Queues a request and resolves with whatever the runner resolves it with. When `signal`
   * aborts while the request still waits (its caller left), it is taken out of the queue and
   * never runs; once dispatched, a batch cannot be interrupted.
   */
  submit<R>(
    payload: T,
    rows: number,
    priority: number,
    timeoutUs: number,
    length = 0,
    signal?: AbortSignal,
  ): Promise<R> {
    if (this.closed) {
      return Promise.reject(new ModelUnavailableError('model version is unloading'));
    }
    const level = this.levelOf(priority);
    const qp = this.queuePolicy(level);
    const queue = this.levels.get(level) ?? [];
    if (qp.maxQueueSize > 0 && queue.length >= qp.maxQueueSize) {
      return Promise.reject(
        new ModelUnavailableError(
          `exceeds maximum queue size (${qp.maxQueueSize} at priority level ${level})`,
        ),
      );
    }
    const effectiveTimeout =
      timeoutUs > 0 && (qp.allowTimeoutOverride || qp.defaultTimeoutUs === 0)
        ? timeoutUs
        : qp.defaultTimeoutUs;
    const enqueuedNs = this.clock.nowNs();
    const item: QueuedItem<T> = {
      payload,
      rows,
      length,
      level,
      enqueuedNs,
      deadlineNs: effectiveTimeout > 0 ? enqueuedNs + BigInt(effectiveTimeout) * 1000n : 0n,
      resolve: () => undefined,
      reject: () => undefined,
    };
    const done = new Promise<R>((resolve, reject) => {
      item.resolve = resolve as (v: unknown) => void;
      item.reject = reject;
    });
    if (signal?.aborted) {
      this.onAbandoned(item);
      item.reject(new RequestCancelledError());
      return done;
    }
    if (signal) {
      const onAbort = () => this.abandon(item);
      signal.addEventListener('abort', onAbort, { once: true });
      item.detach = () => signal.removeEventListener('abort', onAbort);
    }
    if (this.isTop(level)) this.lastTopNs = enqueuedNs;
    queue.push(item);
    this.levels.set(level, queue);
    this.schedule();
    return done;
  }

  /** Stops taking requests and resolves once queued and running batches are done. */
  drain(): Promise<void> {
    this.closed = true;
    this.schedule();
    if (this.queued === 0 && this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forms and starts as many batches as there are free instances. */
  schedule(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimer(this.timer);
      this.timer = undefined;
    }
    while (this.busy < this.slots()) {
      this.expire();
      const order = this.ordered();
      if (order.length === 0) break;
      const decision = this.decide(order);
      // Low-priority work waits for the instances it may use: a finishing batch or the end of
      // the reservation lets it go.
      const heldMs = decision.kind === 'send' ? this.lowHeldForMs(decision.items) : 0;
      if (heldMs > 0) {
        this.timer = this.clock.setTimer(() => this.schedule(), Math.ceil(heldMs));
        break;
      }
      if (decision.kind === 'wait') {
        this.timer = this.clock.setTimer(
          () => this.schedule(),
          Math.max(1, Math.ceil(decision.us / 1000)),
        );
        break;
      }
      this.start(decision.items);
    }
    this.notifyIdle();
  }

  /** Takes a request whose caller left out of its queue, if it is still waiting there. */
  private abandon(item: QueuedItem<T>): void {
    const q = this.levels.get(item.level);
    const at = q?.indexOf(item) ?? -1;
    if (!q || at < 0) return;
    q.splice(at, 1);
    this.onAbandoned(item);
    item.reject(new RequestCancelledError());
    // The queue changed: a pending max_queue_delay wait or a drain may be over.
    this.schedule();
  }

  private start(batch: QueuedItem<T>[]): void {
    for (const item of batch) {
      const q = this.levels.get(item.level);
      q?.splice(q.indexOf(item), 1);
      item.detach?.();
    }
    const low = !this.isTop(batch[0]!.level);
    const rows = batch.reduce((n, item) => n + item.rows, 0);
    this.busy++;
    this.busyRows += rows;
    if (low) this.busyLow++;
    this.runBatch(batch)
      .catch((err: unknown) => {
        const e = err instanceof Error ? err : new Error(String(err));
        for (const item of batch) item.reject(e);
      })
      .finally(() => {
        this.busy--;
        this.busyRows -= rows;
        if (low) this.busyLow--;
        this.schedule();
      });
  }

  /** Top priority = level 1 when the model declares priority levels; otherwise all is top. */
  private isTop(level: number): boolean {
    return this.policy.priorityLevels < 2 || level <= 1;
  }

  /**
   * 0 when a batch may start now, else for how long the top level's reservation holds it: a
   * lower-priority batch may not take the instances reserved for the top level while that level
   * has had traffic recently. At least one instance is always left to low priority, so bulk
   * never starves, and with no online traffic bulk uses every instance.
   */
  private lowHeldForMs(batch: readonly QueuedItem<T>[]): number {
    const p = this.policy;
    if (batch.length === 0 || this.isTop(batch[0]!.level)) return 0;
    const reserved = Math.min(p.topPriorityReservedInstances, this.slots() - 1);
    if (reserved <= 0 || this.lastTopNs === undefined) return 0;
    const leftMs = p.topPriorityReserveMs - Number(this.clock.nowNs() - this.lastTopNs) / 1e6;
    if (leftMs <= 0 || this.busyLow < this.slots() - reserved) return 0;
    return leftMs;
  }

  /**
   * Which of the ordered requests to send now, or how long to wait. A request is left for a
   * later batch when it would make any request of the batch (itself included) padded to more
   * than max_padding_ratio × its own length — the longest at most ratio × the shortest — or the
   * batch exceed max_batch_tokens padded elements. Bounding each request rather than the batch
   * as a whole matters: by the batch total, a few long texts could take short ones as filler,
   * each short one then costing a long one's compute.
   */
  private decide(
    order: QueuedItem<T>[],
  ): { kind: 'send'; items: QueuedItem<T>[] } | { kind: 'wait'; us: number } {
    const p = this.policy;
    if (!p.enabled || p.maxBatchSize === 0) return { kind: 'send', items: order.slice(0, 1) };
    const maxRows = this.rowCap(order);
    const chosen: QueuedItem<T>[] = [];
    let rows = 0;
    let longest = 0;
    let shortest = Infinity;
    let preferredAt = 0;
    let full = false;
    // One priority level per batch: an online request never waits for bulk rows computed
    // beside it, and bulk batches get their own (smaller) element budget.
    const level = order[0]?.level ?? 0;
    const budget = this.budgetOf(level);
    for (const item of this.candidates(order, level)) {
      if (chosen.length > 0 && rows + item.rows > maxRows) {
        full = true;
        break;
      }
      const nextLongest = Math.max(longest, item.length);
      const nextShortest = Math.min(shortest, item.length);
      const padded = (rows + item.rows) * nextLongest;
      if (
        chosen.length > 0 &&
        p.maxPaddingRatio > 0 &&
        nextLongest > p.maxPaddingRatio * nextShortest
      ) {
        continue;
      }
      // Over the element budget the batch cannot grow much more: send it once formed.
      if (chosen.length > 0 && budget > 0 && padded > budget) {
        full = true;
        continue;
      }
      chosen.push(item);
      rows += item.rows;
      longest = nextLongest;
      shortest = nextShortest;
      if (p.preferredBatchSizes.includes(rows)) preferredAt = chosen.length;
    }
    if (full || rows >= maxRows) return { kind: 'send', items: chosen };
    const largestPreferred = Math.max(0, ...p.preferredBatchSizes);
    // A preferred size goes out at once when nothing bigger is reachable from what is queued.
    if (preferredAt > 0 && (rows >= largestPreferred || preferredAt === chosen.length)) {
      return { kind: 'send', items: chosen.slice(0, preferredAt) };
    }
    // Batches still grow under load: while every instance is busy the queue fills up.
    if (p.dispatchWhenIdle) return { kind: 'send', items: chosen };
    const oldest = order.reduce((a, b) => (a.enqueuedNs < b.enqueuedNs ? a : b));
    const waitedUs = Number(this.clock.nowNs() - oldest.enqueuedNs) / 1000;
    if (waitedUs >= p.maxQueueDelayUs) return { kind: 'send', items: chosen };
    return { kind: 'wait', us: p.maxQueueDelayUs - waitedUs };
  }

  /**
   * The requests of `level` in the order they are offered to a batch: the oldest first (so its
   * wait stays bounded), then — with batch_order `length` — the next LENGTH_WINDOW by closeness
   * to its length (ties first come, first served), then the rest by arrival.
   */
  private candidates(order: QueuedItem<T>[], level: number): QueuedItem<T>[] {
    let end = 0;
    while (end < order.length && order[end]!.level === level) end++;
    const same = order.slice(0, end);
    if (this.policy.batchOrder !== 'length' || same.length < 3) return same;
    const anchor = same[0]!;
    const near = same.slice(1, LENGTH_WINDOW + 1);
    // Array.prototype.sort is stable: equal distances keep arrival order.
    near.sort((a, b) => Math.abs(a.length - anchor.length) - Math.abs(b.length - anchor.length));
    return [anchor, ...near, ...same.slice(LENGTH_WINDOW + 1)];
  }

  /**
   * Most rows the next batch may take: max_batch_size, or with balance_instances and several
   * instances, this instance's share of the outstanding rows (queued + running).
   */
  private rowCap(order: readonly QueuedItem<T>[]): number {
    const p = this.policy;
    const slots = this.slots();
    if (!p.balanceInstances || slots < 2) return p.maxBatchSize;
    const queuedRows = order.reduce((n, item) => n + item.rows, 0);
    return Math.max(1, Math.min(p.maxBatchSize, Math.ceil((queuedRows + this.busyRows) / slots)));
  }

  /**
   * Padded elements a batch of this level may reach. Below the top priority (bulk jobs, large
   * synchronous batches) the tighter `lowPriorityMaxBatchTokens` applies: a running batch cannot
   * be interrupted, so its size bounds how long an online request can wait behind it.
   */
  private budgetOf(level: number): number {
    const p = this.policy;
    const low = p.priorityLevels > 1 && level > 1 ? p.lowPriorityMaxBatchTokens : 0;
    if (low > 0 && p.maxBatchTokens > 0) return Math.min(low, p.maxBatchTokens);
    return low > 0 ? low : p.maxBatchTokens;
  }

  /** Queued requests, highest priority (lowest number) first, FIFO within a level. */
  private ordered(): QueuedItem<T>[] {
    const keys = [...this.levels.keys()].sort((a, b) => a - b);
    return keys.flatMap((k) => this.levels.get(k) ?? []);
  }

  private expire(): void {
    const t = this.clock.nowNs();
    for (const [level, queue] of this.levels) {
      const keep = queue.filter((item) => item.deadlineNs === 0n || item.deadlineNs > t);
      if (keep.length === queue.length) continue;
      for (const item of queue) {
        if (keep.includes(item)) continue;
        item.detach?.();
        this.onExpired(item);
        item.reject(new ModelUnavailableError('request timeout expired while queued'));
      }
      this.levels.set(level, keep);
    }
  }

  private levelOf(priority: number): number {
    const p = this.policy;
    if (p.priorityLevels === 0) return 0;
    return priority === 0 ? p.defaultPriorityLevel : priority;
  }

  private queuePolicy(level: number): QueuePolicy {
    return this.policy.priorityQueuePolicy.get(level) ?? this.policy.defaultQueuePolicy;
  }

  private notifyIdle(): void {
    if (this.queued > 0 || this.busy > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
