import { RequestCancelledError } from '../core/model-host.errors';
import type { BatchingPolicy, QueuedItem } from './batching.types';
import { DynamicBatcher } from './dynamic-batcher';
import { ManualBatcherClock } from './manual-batcher-clock';

const policy: BatchingPolicy = {
  enabled: true,
  maxBatchSize: 8,
  preferredBatchSizes: [],
  maxQueueDelayUs: 0,
  priorityLevels: 0,
  defaultPriorityLevel: 0,
  defaultQueuePolicy: { maxQueueSize: 0, defaultTimeoutUs: 0, allowTimeoutOverride: false },
  maxPaddingRatio: 0,
  maxBatchTokens: 0,
  dispatchWhenIdle: false,
  lowPriorityMaxBatchTokens: 0,
  topPriorityReservedInstances: 0,
  topPriorityReserveMs: 1000,
  priorityQueuePolicy: new Map(),
  batchOrder: 'arrival',
  balanceInstances: false,
};

/** One instance that finishes a batch only when the test says so; abandoned items recorded. */
function harness(p: BatchingPolicy = policy) {
  const batches: QueuedItem<string>[][] = [];
  const finishers: Array<() => void> = [];
  const abandoned: string[] = [];
  const batcher = new DynamicBatcher<string>(
    p,
    () => 1,
    (batch) =>
      new Promise<void>((resolve) => {
        batches.push(batch);
        finishers.push(() => {
          for (const item of batch) item.resolve(`done:${item.payload}`);
          resolve();
        });
      }),
    { clock: new ManualBatcherClock(), onAbandoned: (item) => abandoned.push(item.payload) },
  );
  const finishNext = async () => {
    finishers.shift()?.();
    await flush();
  };
  const payloads = () => batches.map((b) => b.map((i) => i.payload));
  return { batcher, finishNext, payloads, abandoned };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('DynamicBatcher with callers that leave', () => {
  it('never runs a queued request whose caller aborted, and batches the others', async () => {
    const h = harness();
    const first = h.batcher.submit('a', 1, 0, 0);
    await flush();
    const gone = new AbortController();
    const b = h.batcher.submit('b', 1, 0, 0, 0, gone.signal);
    const c = h.batcher.submit('c', 1, 0, 0);
    gone.abort();
    await expect(b).rejects.toBeInstanceOf(RequestCancelledError);
    expect(h.batcher.queued).toBe(1);
    await h.finishNext();
    await h.finishNext();
    expect(h.payloads()).toEqual([['a'], ['c']]);
    expect(h.abandoned).toEqual(['b']);
    await expect(Promise.all([first, c])).resolves.toEqual(['done:a', 'done:c']);
  });

  it('lets a dispatched request finish when its caller aborts afterwards (a batch is not interrupted)', async () => {
    const h = harness();
    const gone = new AbortController();
    const a = h.batcher.submit('a', 1, 0, 0, 0, gone.signal);
    await flush();
    expect(h.payloads()).toEqual([['a']]);
    gone.abort();
    await h.finishNext();
    await expect(a).resolves.toBe('done:a');
    expect(h.abandoned).toEqual([]);
  });

  it('refuses at once a request whose caller left before it was queued', async () => {
    const h = harness();
    const busy = h.batcher.submit('busy', 1, 0, 0);
    const gone = new AbortController();
    gone.abort();
    await expect(h.batcher.submit('late', 1, 0, 0, 0, gone.signal)).rejects.toBeInstanceOf(
      RequestCancelledError,
    );
    expect(h.batcher.queued).toBe(0);
    expect(h.abandoned).toEqual(['late']);
    await h.finishNext();
    await busy;
    expect(h.payloads()).toEqual([['busy']]);
  });

  it('lets a drain finish when the only waiting request is abandoned', async () => {
    const h = harness();
    const running = h.batcher.submit('running', 1, 0, 0);
    await flush();
    const gone = new AbortController();
    const waiting = h.batcher.submit('waiting', 1, 0, 0, 0, gone.signal);
    let drained = false;
    const drain = h.batcher.drain().then(() => (drained = true));
    gone.abort();
    await expect(waiting).rejects.toBeInstanceOf(RequestCancelledError);
    await flush();
    expect(drained).toBe(false);
    await h.finishNext();
    await drain;
    expect(drained).toBe(true);
    await running;
    expect(h.payloads()).toEqual([['running']]);
  });

  it('stops listening to the signal once the request is dispatched or abandoned', async () => {
    const h = harness();
    const signal = new AbortController().signal;
    const added = jest.spyOn(signal, 'addEventListener');
    const removed = jest.spyOn(signal, 'removeEventListener');
    const a = h.batcher.submit('a', 1, 0, 0, 0, signal);
    await flush();
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed).toHaveBeenCalledTimes(1);
    await h.finishNext();
    await a;
  });
});
