import type { BatchingPolicy, QueuedItem } from './batching.types';

/**
 * Which queued requests form a version's next batch, and when: the batch formation rules of
 * the dynamic batcher (padding bound, element budgets, preferred sizes, queue delay), apart
 * from its queue and instance bookkeeping.
 */

/** Queued requests (after the oldest) considered for closeness in length per batch. */
export const LENGTH_WINDOW = 256;

/** What the batcher knows when it forms a batch. */
export interface BatcherState {
  policy: BatchingPolicy;
  /** Instances of the version. */
  slots: number;
  /** Rows of the batches in flight (for balance_instances). */
  busyRows: number;
  nowNs: () => bigint;
}

export type BatchDecision<T> =
  { kind: 'send'; items: QueuedItem<T>[] } | { kind: 'wait'; us: number };

/**
 * Which of the ordered requests to send now, or how long to wait. A request is left for a
 * later batch when it would make any request of the batch (itself included) padded to more
 * than max_padding_ratio × its own length — the longest at most ratio × the shortest — or the
 * batch exceed max_batch_tokens padded elements. Bounding each request rather than the batch
 * as a whole matters: by the batch total, a few long texts could take short ones as filler,
 * each short one then costing a long one's compute.
 */
export function decideNextBatch<T>(order: QueuedItem<T>[], state: BatcherState): BatchDecision<T> {
  const p = state.policy;
  if (!p.enabled || p.maxBatchSize === 0) return { kind: 'send', items: order.slice(0, 1) };
  const maxRows = rowCap(order, state);
  const chosen: QueuedItem<T>[] = [];
  let rows = 0;
  let longest = 0;
  let shortest = Infinity;
  let preferredAt = 0;
  let full = false;
  // One priority level per batch: an online request never waits for bulk rows computed
  // beside it, and bulk batches get their own (smaller) element budget.
  const level = order[0]?.level ?? 0;
  const budget = budgetOf(p, level);
  for (const item of candidates(p, order, level)) {
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
  const waitedUs = Number(state.nowNs() - oldest.enqueuedNs) / 1000;
  if (waitedUs >= p.maxQueueDelayUs) return { kind: 'send', items: chosen };
  return { kind: 'wait', us: p.maxQueueDelayUs - waitedUs };
}

/**
 * The requests of `level` in the order they are offered to a batch: the oldest first (so its
 * wait stays bounded), then — with batch_order `length` — the next LENGTH_WINDOW by closeness
 * to its length (ties first come, first served), then the rest by arrival.
 */
function candidates<T>(
  policy: BatchingPolicy,
  order: QueuedItem<T>[],
  level: number,
): QueuedItem<T>[] {
  let end = 0;
  while (end < order.length && order[end]!.level === level) end++;
  const same = order.slice(0, end);
  if (policy.batchOrder !== 'length' || same.length < 3) return same;
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
function rowCap<T>(order: readonly QueuedItem<T>[], state: BatcherState): number {
  const p = state.policy;
  const slots = state.slots;
  if (!p.balanceInstances || slots < 2) return p.maxBatchSize;
  const queuedRows = order.reduce((n, item) => n + item.rows, 0);
  return Math.max(1, Math.min(p.maxBatchSize, Math.ceil((queuedRows + state.busyRows) / slots)));
}

/**
 * Padded elements a batch of this level may reach. Below the top priority (bulk jobs, large
 * synchronous batches) the tighter `lowPriorityMaxBatchTokens` applies: a running batch cannot
 * be interrupted, so its size bounds how long an online request can wait behind it.
 */
function budgetOf(p: BatchingPolicy, level: number): number {
  const low = p.priorityLevels > 1 && level > 1 ? p.lowPriorityMaxBatchTokens : 0;
  if (low > 0 && p.maxBatchTokens > 0) return Math.min(low, p.maxBatchTokens);
  return low > 0 ? low : p.maxBatchTokens;
}
