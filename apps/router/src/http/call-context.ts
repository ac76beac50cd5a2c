import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CallContext } from '../predict/predict-commands';

/** Request ids we accept from callers: printable, bounded, so they are safe in logs and headers. */
const REQUEST_ID = /^[\x21-\x7E]{1,128}$/;
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

type HeaderValue = string | string[] | undefined;

function first(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The caller's request id if it is well-formed, else a fresh one. */
export function requestIdFrom(value: HeaderValue): string {
  const id = first(value);
  return id !== undefined && REQUEST_ID.test(id) ? id : randomUUID();
}

/** A W3C traceparent passed through unchanged when well-formed; dropped otherwise. */
export function traceparentFrom(value: HeaderValue): string | undefined {
  const tp = first(value)?.trim().toLowerCase();
  return tp !== undefined && TRACEPARENT.test(tp) ? tp : undefined;
}

/** Builds the transport-neutral context from HTTP headers or gRPC metadata values. */
export function callContext(
  transport: CallContext['transport'],
  get: (name: string) => HeaderValue,
  receivedAt = performance.now(),
  signal?: AbortSignal,
): CallContext {
  const sticky = first(get('x-mesh-sticky-key'));
  return {
    transport,
    authorization: first(get('authorization')),
    requestId: requestIdFrom(get('x-request-id')),
    traceparent: traceparentFrom(get('traceparent')),
    stickyKey:
      sticky !== undefined && sticky.length > 0 && sticky.length <= 256 ? sticky : undefined,
    receivedAt,
    ...(signal ? { signal } : {}),
  };
}

/** What `abortedOnClose` needs of a response (Node's ServerResponse). */
export interface ClosableResponse {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/**
 * A signal that aborts when the connection closes before the answer was written: a predict
 * still waiting to be merged into a backend call then leaves its batch.
 */
export function abortedOnClose(response: ClosableResponse): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
