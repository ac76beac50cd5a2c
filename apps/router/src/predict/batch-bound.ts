import type { RouterConfig } from '@mesh/app-config';

/** Fixed per-item overhead of a KServe request beyond the three INT64 tensors (names, shapes). */
const PER_ITEM_OVERHEAD_BYTES = 256;

/**
 * The largest sync batch whose request fits the backend's gRPC message limit at the longest
 * sequence the router may send (3 INT64 tensors × maxLength tokens per item).
 */
export function batchBound(config: RouterConfig, maxSequenceLength: number): number {
  const perItem = 3 * 8 * maxSequenceLength + PER_ITEM_OVERHEAD_BYTES;
  const fits = Math.floor(config.KSERVE_MAX_MESSAGE_BYTES / perItem);
  return Math.max(1, Math.min(config.ROUTER_MAX_BATCH, fits));
}
