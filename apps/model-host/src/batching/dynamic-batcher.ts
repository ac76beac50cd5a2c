import { ModelUnavailableError, RequestCancelledError } from '../core/model-host.errors';
import { systemBatcherClock, type BatcherClock } from './batcher-clock';
import type { BatchRunner, BatchingPolicy, QueuePolicy, QueuedItem } from './batching.types';
import { decideNextBatch } from './next-batch-decision';

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
      return Promise.reject(new ModelUnavailableError('model version is not ready: unloading'));
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
      const decision = decideNextBatch(order, {
        policy: this.policy,
        slots: this.slots(),
        busyRows: this.busyRows,
        nowNs: () => this.clock.nowNs(),
      });
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
