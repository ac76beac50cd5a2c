import type { BatchingPolicy } from '../batching/batching.types';
import type { InferRequest } from '../core/inference.types';
import type { ModelVersionSpec } from '../core/model-spec';

/** A batching policy with every knob off (arrival order, no delay, no padding bound), `over` on top. */
export function batchingPolicy(over: Partial<BatchingPolicy> = {}): BatchingPolicy {
  return {
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
    batchOrder: 'arrival',
    balanceInstances: false,
    lowPriorityMaxBatchTokens: 0,
    topPriorityReservedInstances: 0,
    topPriorityReserveMs: 1000,
    priorityQueuePolicy: new Map(),
    ...over,
  };
}

/**
 * Version `m`/`1` with one FP32 input `x` [1] and output `y` [1], batching up to `maxBatchSize`
 * rows under `batching` (whose maxBatchSize follows); `over` replaces any other field.
 */
export function versionSpec(
  maxBatchSize: number,
  batching: Partial<BatchingPolicy> = {},
  over: Partial<ModelVersionSpec> = {},
): ModelVersionSpec {
  return {
    model: 'm',
    version: '1',
    maxBatchSize,
    inputs: [{ name: 'x', datatype: 'FP32', dims: [1] }],
    outputs: [{ name: 'y', datatype: 'FP32', dims: [1] }],
    batching: batchingPolicy({ maxBatchSize, ...batching }),
    ...over,
  };
}

/** A one-row request `id` for `m`/`1`: FP32 `x` of shape [1, 1]. */
export function inferRequest(id: string, over: Partial<InferRequest> = {}): InferRequest {
  return {
    id,
    model: 'm',
    version: '1',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 1], data: new Uint8Array(4) }],
    outputs: [],
    priority: 0,
    timeoutUs: 0,
    ...over,
  };
}

/** One turn of the event loop: what was queued has been dispatched. */
export const turn = (): Promise<unknown> => new Promise((r) => setImmediate(r));
