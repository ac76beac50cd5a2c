/** Queue and batching policy of one model version, from config.pbtxt's dynamic_batching. */
export interface QueuePolicy {
  /** 0 = unbounded. */
  maxQueueSize: number;
  /** 0 = no timeout. */
  defaultTimeoutUs: number;
  allowTimeoutOverride: boolean;
}

export interface BatchingPolicy {
  /** False: every request runs on its own (no dynamic_batching block). */
  enabled: boolean;
  /** Rows per batch; 0 means the model has no batch dimension. */
  maxBatchSize: number;
  preferredBatchSizes: number[];
  maxQueueDelayUs: number;
  /** 0 = no priorities (one level). */
  priorityLevels: number;
  defaultPriorityLevel: number;
  defaultQueuePolicy: QueuePolicy;
  /**
   * Largest padded ÷ real elements a batch may reach when requests of different lengths are
   * padded together; 0 = no limit.
   */
  maxPaddingRatio: number;
  /** Most padded elements (rows × longest) per batch; 0 = only max_batch_size limits it. */
  maxBatchTokens: number;
  /**
   * True: a free instance takes what is queued at once instead of waiting max_queue_delay for
   * batch partners (config parameter `dispatch_when_idle`, default true). False is Triton's rule.
   */
  dispatchWhenIdle: boolean;
  /**
   * Which queued requests join the oldest one in a batch (config parameter `batch_order`):
   * `length` (default) takes those closest to its length first, so a batch pads little and
   * mixed traffic batches like sorted traffic; `arrival` takes them first come, first served,
   * as Triton. Either way the oldest request is always in the next batch of its level.
   */
  batchOrder: 'length' | 'arrival';
  /**
   * With several instances, a batch takes at most its instance's share of the outstanding rows
   * (queued + running, ÷ instances, rounded up) (config parameter `balance_instances`, default
   * true). Without it, a free instance takes the whole queue while the others
   * run single requests as they trickle in: one large batch beside a string of batch-1 runs.
   */
  balanceInstances: boolean;
  /**
   * Most padded elements per batch of a priority level below 1 (bulk); 0 = no extra limit.
   * Bounds how long an online request can wait behind a running bulk batch.
   */
  lowPriorityMaxBatchTokens: number;
  /**
   * Instances kept free for the top priority level while it has traffic (config parameter
   * `top_priority_reserved_instances`; at most instances - 1 take effect). A running batch
   * cannot be interrupted, so this is what keeps an online request from waiting behind bulk.
   */
  topPriorityReservedInstances: number;
  /** How long after the last top-priority request the reservation holds (`top_priority_reserve_ms`). */
  topPriorityReserveMs: number;
  /** Per priority level overrides. */
  priorityQueuePolicy: Map<number, QueuePolicy>;
}

/** One request waiting for a batch. `rows` is its size along the batch dimension. */
export interface QueuedItem<T> {
  payload: T;
  rows: number;
  /** Elements per row (the padding cost of a request); 0 = not padded. */
  length: number;
  level: number;
  enqueuedNs: bigint;
  /** 0n = never expires. */
  deadlineNs: bigint;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** Stops watching the caller's abort signal (once the item left the queue). */
  detach?: () => void;
}

/** Runs one formed batch; resolves each item itself (per-request results differ). */
export type BatchRunner<T> = (batch: QueuedItem<T>[]) => Promise<void>;
