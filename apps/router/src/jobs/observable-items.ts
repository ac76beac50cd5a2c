import type { Observable } from 'rxjs';

/**
 * An rxjs Observable (Nest's view of a client stream) as an async iterable. Values that arrive
 * before they are read wait in a queue; the gRPC message size bounds each one.
 */
export function observableToIterable<T>(source: Observable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const queue: T[] = [];
      let done = false;
      let failure: Error | undefined;
      let wake: (() => void) | undefined;
      const subscription = source.subscribe({
        next: (v) => {
          queue.push(v);
          wake?.();
        },
        error: (err: unknown) => {
          failure = err instanceof Error ? err : new Error(String(err));
          wake?.();
        },
        complete: () => {
          done = true;
          wake?.();
        },
      });
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (queue.length > 0) return { value: queue.shift() as T, done: false };
            if (failure !== undefined) throw failure;
            if (done) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        },
        return(): Promise<IteratorResult<T>> {
          subscription.unsubscribe();
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
