/** A server call's "the caller left" signal and how to stop listening for it. */
export interface CallerGone {
  /** Aborts when the client cancels the call or its deadline passes. */
  signal: AbortSignal;
  /** Stops listening: call it once the call is answered. */
  release: () => void;
}

/**
 * Aborts when the client cancels the call (or its deadline passes): grpc-js emits 'cancelled'
 * then, and work of that call still queued can be dropped instead of run for nobody. grpc-js
 * also emits it when the stream of an answered call closes; `release` stops listening once the
 * answer is in hand, so a finished call is not aborted after the fact (an abort and its
 * DOMException per call, and listeners that would run for nothing).
 */
export function callerGone(call: {
  cancelled: boolean;
  once(event: 'cancelled', listener: () => void): unknown;
  removeListener(event: 'cancelled', listener: () => void): unknown;
}): CallerGone {
  const gone = new AbortController();
  const onCancelled = () => gone.abort();
  if (call.cancelled) gone.abort();
  else call.once('cancelled', onCancelled);
  return { signal: gone.signal, release: () => call.removeListener('cancelled', onCancelled) };
}
