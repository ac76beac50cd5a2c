import { RequestCancelledError } from '../core/model-host.errors';
import { batchingPolicy, turn } from '../testing/batching-fixture';
import { heldBatcher } from '../testing/held-batcher';

describe('DynamicBatcher with callers that leave', () => {
  it('never runs a queued request whose caller aborted, and batches the others', async () => {
    const h = heldBatcher(batchingPolicy());
    const first = h.batcher.submit('a', 1, 0, 0);
    await turn();
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
    const h = heldBatcher(batchingPolicy());
    const gone = new AbortController();
    const a = h.batcher.submit('a', 1, 0, 0, 0, gone.signal);
    await turn();
    expect(h.payloads()).toEqual([['a']]);
    gone.abort();
    await h.finishNext();
    await expect(a).resolves.toBe('done:a');
    expect(h.abandoned).toEqual([]);
  });

  it('refuses at once a request whose caller left before it was queued', async () => {
    const h = heldBatcher(batchingPolicy());
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
    const h = heldBatcher(batchingPolicy());
    const running = h.batcher.submit('running', 1, 0, 0);
    await turn();
    const gone = new AbortController();
    const waiting = h.batcher.submit('waiting', 1, 0, 0, 0, gone.signal);
    let drained = false;
    const drain = h.batcher.drain().then(() => (drained = true));
    gone.abort();
    await expect(waiting).rejects.toBeInstanceOf(RequestCancelledError);
    await turn();
    expect(drained).toBe(false);
    await h.finishNext();
    await drain;
    expect(drained).toBe(true);
    await running;
    expect(h.payloads()).toEqual([['running']]);
  });

  it('stops listening to the signal once the request is dispatched or abandoned', async () => {
    const h = heldBatcher(batchingPolicy());
    const signal = new AbortController().signal;
    const added = jest.spyOn(signal, 'addEventListener');
    const removed = jest.spyOn(signal, 'removeEventListener');
    const a = h.batcher.submit('a', 1, 0, 0, 0, signal);
    await turn();
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed).toHaveBeenCalledTimes(1);
    await h.finishNext();
    await a;
  });
});
