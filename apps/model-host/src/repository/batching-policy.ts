import type { ModelConfig, QueuePolicy as ConfigQueuePolicy } from '@mesh/model-repository';
import type { BatchingPolicy, QueuePolicy } from '../batching/batching.types';

function queuePolicy(q: ConfigQueuePolicy | undefined): QueuePolicy {
  return {
    maxQueueSize: q?.maxQueueSize ?? 0,
    defaultTimeoutUs: q?.defaultTimeoutMicroseconds ?? 0,
    allowTimeoutOverride: q?.allowTimeoutOverride ?? false,
  };
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
    priorityQueuePolicy: perLevel,
  };
}
