import type { InferStatistics, ModelStatistics } from '@mesh/kserve';
import type { VersionStatistics } from '../core/model-host.service';

/** Statistics in Triton's ModelStatistics shape (gRPC message and REST JSON alike). */
export function statsToProto(s: VersionStatistics): ModelStatistics {
  const d = (x: { count: number; ns: number }) => ({ count: x.count, ns: x.ns });
  const inference: InferStatistics = {
    success: d(s.success),
    fail: d(s.fail),
    queue: d(s.queue),
    compute_input: d(s.computeInput),
    compute_infer: d(s.computeInfer),
    compute_output: d(s.computeOutput),
    cache_hit: d({ count: 0, ns: 0 }),
    cache_miss: d({ count: 0, ns: 0 }),
  };
  return {
    name: s.name,
    version: s.version,
    last_inference: s.lastInferenceMs,
    inference_count: s.inferenceCount,
    execution_count: s.executionCount,
    inference_stats: inference,
    batch_stats: s.batches.map((b) => ({
      batch_size: b.batchSize,
      compute_input: d(b.computeInput),
      compute_infer: d(b.computeInfer),
      compute_output: d(b.computeOutput),
    })),
  };
}
