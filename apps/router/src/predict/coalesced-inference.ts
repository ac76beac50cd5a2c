import { BackendError } from '@mesh/kserve';
import {
  BadBackendResponseError,
  type InferenceGateway,
  type ServableVersion,
} from '@mesh/inference';
import { splitOutput, type EncodedBatch, type OutputTensor } from '@mesh/preprocessing';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { endSpan, traceparentOf, tracingEnabled, type Span } from '@mesh/telemetry';
import { describeError } from '../errors/error-view';
import { CallCancelledError } from '../errors/router.errors';
import { startBackendCallSpan } from './request.trace';
import { RequestCoalescer } from './request-coalescer';

/** Calls in flight per version when neither the setting nor the backend's instances are known. */
export const DEFAULT_IN_FLIGHT = 2;

/**
 * Calls per version in flight before predicts wait to be merged: ROUTER_COALESCE_IN_FLIGHT when
 * set, else the backend's instances + 1 — a call running on each instance and one more queued
 * behind them, so an instance that finishes starts the next call at once instead of idling for
 * a round trip to the router (on a 2-instance host, 3 in flight beat the fixed 2). Unknown
 * instances: DEFAULT_IN_FLIGHT.
 */
export function inFlightFor(explicit: number | undefined, instances: number | undefined): number {
  if (explicit !== undefined) return explicit;
  return instances !== undefined && instances > 0 ? instances + 1 : DEFAULT_IN_FLIGHT;
}

export interface CoalescingOptions {
  /**
   * Calls per version in flight before requests wait to be merged (ROUTER_COALESCE_IN_FLIGHT);
   * undefined: follow the backend's instances (`inFlightFor`).
   */
  maxInFlight?: number;
  /** Session instances serving a version, from the backends' ModelConfig (undefined: unknown). */
  instancesOf?: (version: ServableVersion) => number | undefined;
  /** Rows of one merged call (ROUTER_COALESCE_MAX_ROWS; also the model's max_batch_size). */
  maxRows: number;
  /** Padded tokens of one merged call (ROUTER_COALESCE_MAX_TOKENS). */
  maxTokens: number;
  /** Length bucket: only requests whose lengths round up to the same multiple merge. */
  bucket: number;
  /** A caller's whole budget, waiting included (KSERVE_DEADLINE_MS). */
  deadlineMs: number;
  now?: () => number;
}

export interface CoalescedCall {
  requestId: string;
  traceparent: string | undefined;
  /** The request's span, while tracing is on: the shared call's span links to each. */
  span?: Span;
  /** Aborts when the caller leaves. */
  signal?: AbortSignal;
}

interface Part {
  version: ServableVersion;
  batch: EncodedBatch;
  call: CoalescedCall;
}

/** Called once per backend call with how many requests it carried (metrics). */
export type MergedObserver = (version: ServableVersion, requests: number, rows: number) => void;

/**
 * Online predicts of one model version merged into shared ModelInfer calls (see
 * RequestCoalescer and ADR 0012): each caller encodes its own text; concurrent callers whose
 * lengths fall in the same bucket go out as one batch padded to the longest among them, and
 * each gets its own rows of the output back. The merged call carries the first caller's
 * request id and trace context; traced, it is one client span, child of the first request's
 * span and linked to every request's span.
 */
export class CoalescedInference {
  private readonly coalescer: RequestCoalescer<Part, OutputTensor>;

  constructor(
    private readonly gateway: InferenceGateway,
    private readonly options: CoalescingOptions,
    private readonly observe: MergedObserver = () => undefined,
  ) {
    this.coalescer = new RequestCoalescer<Part, OutputTensor>(
      (_lane, parts, deadlineMs) => this.run(parts, deadlineMs),
      { ...options, maxInFlight: options.maxInFlight ?? DEFAULT_IN_FLIGHT },
      {
        expired: () =>
          new BackendError(
            'router',
            'ModelInfer',
            GrpcStatus.DEADLINE_EXCEEDED,
            'deadline passed while waiting to be merged',
          ),
        cancelled: () => new CallCancelledError(),
        mismatch: (got, want) =>
          new BadBackendResponseError(`merged call answered ${got} parts for ${want}`),
      },
    );
  }

  infer(version: ServableVersion, batch: EncodedBatch, call: CoalescedCall): Promise<OutputTensor> {
    const bucket = Math.ceil(batch.seqLength / this.options.bucket);
    const now = (this.options.now ?? Date.now)();
    return this.coalescer.submit(`${version.model}\u0000${version.version}`, {
      group: String(bucket),
      payload: { version, batch, call },
      rows: batch.batchSize,
      tokens: batch.batchSize * bucket * this.options.bucket,
      deadlineAt: now + this.options.deadlineMs,
      maxRows: Math.max(1, version.maxBatchSize),
      maxInFlight: inFlightFor(this.options.maxInFlight, this.options.instancesOf?.(version)),
      ...(call.signal ? { signal: call.signal } : {}),
    });
  }

  private async run(parts: Part[], deadlineMs: number): Promise<OutputTensor[]> {
    const first = parts[0]!;
    const batches = parts.map((p) => p.batch);
    const merged = parts.length === 1 ? first.batch : first.version.merge(batches);
    this.observe(first.version, parts.length, merged.batchSize);
    const signal = whenAllLeft(parts.map((p) => p.call.signal));
    const traced = tracingEnabled() ? parts.flatMap((p) => (p.call.span ? [p.call.span] : [])) : [];
    const span =
      traced.length > 0 ? startBackendCallSpan(first.version, traced, merged.batchSize) : undefined;
    let output: OutputTensor;
    try {
      output = await this.gateway.infer(first.version, merged, {
        requestId: first.call.requestId,
        traceparent: span ? traceparentOf(span) : first.call.traceparent,
        priority: 1,
        deadlineMs,
        ...(signal ? { signal } : {}),
      });
    } catch (err: unknown) {
      if (span) endSpan(span, describeError(err).code, (err as Error).message);
      throw err;
    }
    if (span) endSpan(span, 'ok');
    return splitOutput(output, batches);
  }
}

/**
 * Aborts once every caller of a sent call has left, so the backend call is cancelled (and a
 * host drops it while it is still queued). Rows of callers who left while others still wait
 * cannot be taken out of a call in flight; they are computed and discarded.
 */
function whenAllLeft(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  if (signals.length === 0 || signals.some((s) => s === undefined)) return undefined;
  const all = signals as readonly AbortSignal[];
  if (all.length === 1) return all[0];
  const controller = new AbortController();
  const check = () => {
    if (all.every((s) => s.aborted)) controller.abort();
  };
  for (const s of all) s.addEventListener('abort', check, { once: true });
  check();
  return controller.signal;
}
