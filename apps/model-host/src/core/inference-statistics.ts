import type { ComputeTimings } from './inference.types';

export interface Duration {
  count: number;
  ns: number;
}

export interface BatchDurations {
  batchSize: number;
  computeInput: Duration;
  computeInfer: Duration;
  computeOutput: Duration;
}

const zero = (): Duration => ({ count: 0, ns: 0 });
const add = (d: Duration, ns: number, n = 1): void => {
  d.count += n;
  d.ns += ns;
};

/**
 * Triton's per model version statistics (what ModelStatistics and /stats return): cumulative
 * counts and nanoseconds per phase, plus per batch size execution figures.
 */
export class InferenceStatistics {
  readonly success = zero();
  readonly fail = zero();
  readonly queue = zero();
  readonly computeInput = zero();
  readonly computeInfer = zero();
  readonly computeOutput = zero();
  inferenceCount = 0;
  executionCount = 0;
  lastInferenceMs = 0;
  private readonly batches = new Map<number, BatchDurations>();

  recordSuccess(requestNs: number, queueNs: number, compute: ComputeTimings, rows: number): void {
    add(this.success, requestNs);
    add(this.queue, queueNs);
    add(this.computeInput, compute.inputNs);
    add(this.computeInfer, compute.inferNs);
    add(this.computeOutput, compute.outputNs);
    this.inferenceCount += rows;
    this.lastInferenceMs = Date.now();
  }

  recordFailure(requestNs: number): void {
    add(this.fail, requestNs);
    this.lastInferenceMs = Date.now();
  }

  recordExecution(batchSize: number, compute: ComputeTimings): void {
    this.executionCount++;
    let b = this.batches.get(batchSize);
    if (!b) {
      b = { batchSize, computeInput: zero(), computeInfer: zero(), computeOutput: zero() };
      this.batches.set(batchSize, b);
    }
    add(b.computeInput, compute.inputNs);
    add(b.computeInfer, compute.inferNs);
    add(b.computeOutput, compute.outputNs);
  }

  batchStats(): BatchDurations[] {
    return [...this.batches.values()].sort((a, b) => a.batchSize - b.batchSize);
  }
}
