import type { BatchingPolicy, QueuedItem } from '../batching/batching.types';
import { DynamicBatcher } from '../batching/dynamic-batcher';
import { ManualBatcherClock } from '../batching/manual-batcher-clock';
import { turn } from './batching-fixture';

/**
 * A DynamicBatcher over `slots` fake instances that record each batch and finish it (each item
 * answering `done:<payload>`) only when the test says so, and a manual clock: queue delays and
 * timeouts pass only when the test advances it. Abandoned payloads are recorded.
 */
export function heldBatcher(policy: BatchingPolicy, slots = 1) {
  const clock = new ManualBatcherClock();
  const batches: QueuedItem<string>[][] = [];
  const finishers: Array<() => void> = [];
  const abandoned: string[] = [];
  const batcher = new DynamicBatcher<string>(
    policy,
    () => slots,
    (batch) =>
      new Promise<void>((resolve) => {
        batches.push(batch);
        finishers.push(() => {
          for (const item of batch) item.resolve(`done:${item.payload}`);
          resolve();
        });
      }),
    { clock, onAbandoned: (item) => abandoned.push(item.payload) },
  );
  const finishNext = async () => {
    finishers.shift()?.();
    await turn();
  };
  const payloads = () => batches.map((b) => b.map((i) => i.payload));
  /**
   * Occupies the instance with `blocker` (length 10), then queues each [payload, length] behind
   * it; answers every submitted promise, the blocker's first.
   */
  const queueBehindBlocker = async (lengths: Array<[string, number]>) => {
    const blocker = batcher.submit('blocker', 1, 0, 0, 10);
    await turn();
    return [blocker, ...lengths.map(([p, len]) => batcher.submit(p, 1, 0, 0, len))];
  };
  return { batcher, batches, finishNext, payloads, clock, abandoned, queueBehindBlocker };
}
