/** Limits of the coalescer; see ROUTER_COALESCE_* in the router's config. */
export interface CoalescerOptions {
  /** Calls per lane (model version) in flight before new requests wait to be merged. */
  maxInFlight: number;
  /** Most rows one merged call may carry. */
  maxRows: number;
  /** Most padded tokens (rows × length) one merged call may carry. */
  maxTokens: number;
  /** Milliseconds clock for deadlines (injected by tests). */
  now?: () => number;
}

/** One caller's part of a merged call. */
export interface CoalescedItem<T> {
  /** Calls with different groups are never merged (e.g. the padded length). */
  group: string;
  payload: T;
  /** Rows this item adds to a call (1 for a single predict). */
  rows: number;
  /** Padded tokens it adds (rows × its length bucket). */
  tokens: number;
  /** The lane's own row bound when below the coalescer's (e.g. the model's max_batch_size). */
  maxRows?: number;
  /** The lane's calls in flight when not the coalescer's (e.g. following the backend's instances). */
  maxInFlight?: number;
  /** Absolute deadline on the coalescer's clock; an item still waiting then fails. */
  deadlineAt: number;
  /** The caller left: a waiting item is removed, a sent one is answered no more. */
  signal?: AbortSignal;
}

/** Runs one merged call: one result per payload, in order. `deadlineMs` is the earliest caller's. */
export type CoalescedRun<T, R> = (lane: string, payloads: T[], deadlineMs: number) => Promise<R[]>;

/** How the coalescer fails a caller: its deadline passed while waiting, or it left. */
export interface CoalescerErrors {
  expired: () => Error;
  cancelled: () => Error;
  /** The run answered a different number of results than it was given payloads. */
  mismatch: (got: number, want: number) => Error;
}

interface Waiter<T, R> {
  item: CoalescedItem<T>;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
  settled: boolean;
  detach?: () => void;
}

interface Pending<T, R> {
  group: string;
  waiters: Waiter<T, R>[];
  rows: number;
  tokens: number;
  /** Full: a new request of the group starts the next batch. */
  closed: boolean;
}

interface Lane<T, R> {
  inFlight: number;
  /** Calls in flight before requests wait, as the latest request of the lane gave it. */
  maxInFlight: number;
  /** Batches waiting, oldest first; flushed in this order as calls complete. */
  queue: Pending<T, R>[];
  /** The open (not full) batch of each group, if any. */
  open: Map<string, Pending<T, R>>;
}

/**
 * Request coalescing for one kind of backend call. Per lane (a model version), a request goes
 * out at once while fewer than `maxInFlight` calls are running, so a lone request never
 * waits. Otherwise it joins the open batch of its group (same padded length, so the merged
 * tensor is valid and Triton can run it), bounded by rows and padded tokens; a full batch
 * closes and the next request opens a new one. Each time a call of the lane completes, the
 * oldest waiting batch goes out as one call. No timers: the backend's own completions pace
 * the batches, which is what makes them grow exactly as large as the load needs.
 */
export class RequestCoalescer<T, R> {
  private readonly lanes = new Map<string, Lane<T, R>>();
  private readonly now: () => number;

  constructor(
    private readonly run: CoalescedRun<T, R>,
    private readonly options: CoalescerOptions,
    private readonly errors: CoalescerErrors,
  ) {
    this.now = options.now ?? Date.now;
  }

  submit(lane: string, item: CoalescedItem<T>): Promise<R> {
    if (item.signal?.aborted) return Promise.reject(this.errors.cancelled());
    const l = this.lane(lane);
    l.maxInFlight = item.maxInFlight ?? this.options.maxInFlight;
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<T, R> = { item, resolve, reject, settled: false };
      if (l.inFlight < l.maxInFlight && l.queue.length === 0) {
        this.watch(waiter, undefined);
        this.dispatch(lane, l, [waiter]);
        return;
      }
      const batch = this.batchFor(l, item);
      batch.waiters.push(waiter);
      batch.rows += item.rows;
      batch.tokens += item.tokens;
      if (batch.rows >= this.maxRows(item) || batch.tokens >= this.options.maxTokens) {
        this.close(l, batch);
      }
      this.watch(waiter, { lane: l, batch });
    });
  }

  /** Requests waiting to be merged, per lane (metrics, tests). */
  waiting(lane: string): number {
    return this.lanes.get(lane)?.queue.reduce((n, b) => n + b.waiters.length, 0) ?? 0;
  }

  /** Calls running, per lane. */
  inFlight(lane: string): number {
    return this.lanes.get(lane)?.inFlight ?? 0;
  }

  private lane(name: string): Lane<T, R> {
    let l = this.lanes.get(name);
    if (!l) {
      l = { inFlight: 0, maxInFlight: this.options.maxInFlight, queue: [], open: new Map() };
      this.lanes.set(name, l);
    }
    return l;
  }

  /** The group's open batch if the item fits, else a new one (the old one closes). */
  private batchFor(l: Lane<T, R>, item: CoalescedItem<T>): Pending<T, R> {
    const open = l.open.get(item.group);
    if (
      open &&
      open.rows + item.rows <= this.maxRows(item) &&
      open.tokens + item.tokens <= this.options.maxTokens
    ) {
      return open;
    }
    if (open) this.close(l, open);
    const batch: Pending<T, R> = {
      group: item.group,
      waiters: [],
      rows: 0,
      tokens: 0,
      closed: false,
    };
    l.queue.push(batch);
    l.open.set(item.group, batch);
    return batch;
  }

  private maxRows(item: CoalescedItem<T>): number {
    return Math.min(this.options.maxRows, item.maxRows ?? Infinity);
  }

  private close(l: Lane<T, R>, batch: Pending<T, R>): void {
    batch.closed = true;
    if (l.open.get(batch.group) === batch) l.open.delete(batch.group);
  }

  /** A caller that leaves is answered at once; while it waits, it also leaves its batch. */
  private watch(w: Waiter<T, R>, where: { lane: Lane<T, R>; batch: Pending<T, R> } | undefined) {
    const signal = w.item.signal;
    if (!signal) return;
    const onAbort = () => {
      if (where && !w.settled) this.remove(where.lane, where.batch, w);
      this.settle(w, undefined, this.errors.cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    w.detach = () => signal.removeEventListener('abort', onAbort);
  }

  private remove(l: Lane<T, R>, batch: Pending<T, R>, w: Waiter<T, R>): void {
    const i = batch.waiters.indexOf(w);
    if (i < 0) return;
    batch.waiters.splice(i, 1);
    batch.rows -= w.item.rows;
    batch.tokens -= w.item.tokens;
    if (batch.waiters.length === 0) {
      const q = l.queue.indexOf(batch);
      if (q >= 0) l.queue.splice(q, 1);
      this.close(l, batch);
    }
  }

  private dispatch(name: string, l: Lane<T, R>, waiters: Waiter<T, R>[]): void {
    const now = this.now();
    const live: Waiter<T, R>[] = [];
    for (const w of waiters) {
      if (w.settled) continue;
      if (w.item.deadlineAt <= now) this.settle(w, undefined, this.errors.expired());
      else live.push(w);
    }
    if (live.length === 0) return;
    l.inFlight++;
    const deadlineMs = Math.min(...live.map((w) => w.item.deadlineAt)) - now;
    let call: Promise<R[]>;
    try {
      call = this.run(
        name,
        live.map((w) => w.item.payload),
        deadlineMs,
      );
    } catch (err: unknown) {
      call = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    call.then(
      (results) => {
        if (results.length !== live.length) {
          const err = this.errors.mismatch(results.length, live.length);
          for (const w of live) this.settle(w, undefined, err);
        } else {
          live.forEach((w, i) => this.settle(w, results[i], undefined));
        }
        this.completed(name, l);
      },
      (err: unknown) => {
        for (const w of live) this.settle(w, undefined, err);
        this.completed(name, l);
      },
    );
  }

  /** A call ended: send the oldest waiting batches while there is room. */
  private completed(name: string, l: Lane<T, R>): void {
    l.inFlight--;
    while (l.inFlight < l.maxInFlight) {
      const batch = l.queue.shift();
      if (!batch) break;
      this.close(l, batch);
      this.dispatch(name, l, batch.waiters);
    }
    if (l.inFlight === 0 && l.queue.length === 0) this.lanes.delete(name);
  }

  private settle(w: Waiter<T, R>, result: R | undefined, err: unknown): void {
    if (w.settled) return;
    w.settled = true;
    w.detach?.();
    if (err !== undefined) w.reject(err);
    else w.resolve(result as R);
  }
}
