import type { ModelConfig, QueuePolicy as ConfigQueuePolicy } from '@mesh/model-repository';
import type { BatchingPolicy, QueuePolicy } from '../batching/batching.types';
import { flagParameter, nonNegativeIntParameter } from './config-parameters';
import { ModelLoadError } from './model-load.errors';

function queuePolicy(q: ConfigQueuePolicy | undefined): QueuePolicy {
  return {
    maxQueueSize: q?.maxQueueSize ?? 0,
    defaultTimeoutUs: q?.defaultTimeoutMicroseconds ?? 0,
    allowTimeoutOverride: q?.allowTimeoutOverride ?? false,
  };
}

/**
 * Default bound on each request's padding in a batch (config parameter `max_padding_ratio`): its
 * padded length ≤ ratio × its own. 1.25 measured cheapest per item on the small bench model
 * (bench:host-cost; 1.5 let 15 % more padding through, 1.1 cut batches to 5 rows for no gain).
 */
export const DEFAULT_MAX_PADDING_RATIO = 1.25;

function paddingRatio(config: ModelConfig): number {
  const raw = config.parameters.max_padding_ratio?.stringValue;
  if (raw === undefined) return DEFAULT_MAX_PADDING_RATIO;
  const n = Number(raw);
  if (!Number.isFinite(n) || (n !== 0 && n < 1)) {
    throw new ModelLoadError(
      `parameter 'max_padding_ratio' must be 0 (no limit) or a number >= 1 (got "${raw}")`,
    );
  }
  return n;
}

/**
 * Default padded-element budget of a batch below the top priority (config parameter
 * `low_priority_max_batch_tokens`): 16 rows of 32 tokens, or 4 rows at maxLength 128.
 */
export const DEFAULT_LOW_PRIORITY_MAX_BATCH_TOKENS = 512;

function nonNegativeInt(config: ModelConfig, name: string, fallback: number): number {
  return nonNegativeIntParameter(config, name) ?? fallback;
}

/** Default time a top-priority request keeps reserved instances reserved (`top_priority_reserve_ms`). */
export const DEFAULT_TOP_PRIORITY_RESERVE_MS = 1000;

/**
 * Default of `dispatch_when_idle`: a request that finds an instance free and nothing queued goes
 * at once instead of waiting max_queue_delay for partners that are not coming. Under load every
 * instance is busy, requests queue, and batches form as before. Triton waits the whole delay:
 * behind a config written for Triton (`max_queue_delay_microseconds: 2000`) that made the
 * router's lone-request p50 2× a hand-written server's. `"false"` keeps Triton's rule per model.
 */
export const DEFAULT_DISPATCH_WHEN_IDLE = true;

/**
 * Default of `balance_instances`: with several instances a batch takes at most its instance's
 * share of the outstanding rows. Without it a closed loop of clients falls into a convoy (one
 * instance runs the whole queue as one batch while the other runs single requests): on 2
 * instances at 32 clients that cost 4.07 against 2.96 host CPU-ms per item and a p99 of 314
 * against 144 ms (docs/benchmarks/host-cost.md). The convoy comes from several instances sharing
 * one queue, whatever the dispatch rule, so this default no longer follows dispatch_when_idle.
 */
export const DEFAULT_BALANCE_INSTANCES = true;

function batchOrder(config: ModelConfig): 'length' | 'arrival' {
  const raw = config.parameters.batch_order?.stringValue ?? 'length';
  if (raw !== 'length' && raw !== 'arrival') {
    throw new ModelLoadError(`parameter 'batch_order' must be length or arrival (got "${raw}")`);
  }
  return raw;
}

/** The batcher's policy from config.pbtxt; without dynamic_batching every request runs alone. */
export function batchingPolicyOf(config: ModelConfig): BatchingPolicy {
  const db = config.dynamicBatching;
  const perLevel = new Map<number, QueuePolicy>();
  for (const [level, q] of Object.entries(db?.priorityQueuePolicy ?? {})) {
    perLevel.set(Number(level), queuePolicy(q));
  }
  return {
    enabled: db !== undefined && config.maxBatchSize > 0,
    maxBatchSize: config.maxBatchSize,
    preferredBatchSizes: db?.preferredBatchSize ?? [],
    maxQueueDelayUs: db?.maxQueueDelayMicroseconds ?? 0,
    priorityLevels: db?.priorityLevels ?? 0,
    defaultPriorityLevel: db?.defaultPriorityLevel ?? 0,
    defaultQueuePolicy: queuePolicy(db?.defaultQueuePolicy),
    maxPaddingRatio: paddingRatio(config),
    maxBatchTokens: nonNegativeInt(config, 'max_batch_tokens', 0),
    lowPriorityMaxBatchTokens: nonNegativeInt(
      config,
      'low_priority_max_batch_tokens',
      DEFAULT_LOW_PRIORITY_MAX_BATCH_TOKENS,
    ),
    dispatchWhenIdle: flagParameter(config, 'dispatch_when_idle', DEFAULT_DISPATCH_WHEN_IDLE),
    batchOrder: batchOrder(config),
    balanceInstances: flagParameter(config, 'balance_instances', DEFAULT_BALANCE_INSTANCES),
    topPriorityReservedInstances: nonNegativeInt(config, 'top_priority_reserved_instances', 0),
    topPriorityReserveMs: nonNegativeInt(
      config,
      'top_priority_reserve_ms',
      DEFAULT_TOP_PRIORITY_RESERVE_MS,
    ),
    priorityQueuePolicy: perLevel,
  };
}
