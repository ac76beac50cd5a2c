import { performance } from 'node:perf_hooks';
import { ELEMENT_BYTES, type FixedDatatype } from '@mesh/kserve';
import { ORT_TYPE_OF } from '@mesh/model-repository';
import { recordChildSpan, type Span } from '@mesh/telemetry';
import { assembleBatch, feedsOf, splitOutput } from '../batching/batch-assembler';
import type { QueuedItem } from '../batching/batching.types';
import { DynamicBatcher } from '../batching/dynamic-batcher';
import type { RunHints, RunResult } from '../execution/session-pool-client';
import type { HostMetrics } from './host.metrics';
import { validateInferRequest } from './infer-request.check';
import { InferenceStatistics } from './inference-statistics';
import type { ComputeTimings, HostTensor, InferRequest, InferResponse } from './inference.types';
import {
  HostError,
  InferenceExecutionError,
  toHostError,
  type HostErrorCode,
} from './model-host.errors';
import type { ModelVersionSpec } from './model-spec';

/** The execution side a runtime needs: its instances and a way to run one batch. */
export interface BatchExecutor {
  /** Live instances: how many batches may run at once. */
  readonly size: number;
  /** A lone-batch session is there to warm up (see SessionPoolClient). */
  readonly hasLoneSession?: boolean;
  onCapacity?: () => void;
  run(
    feeds: { name: string; type: string; dims: number[]; buffer: ArrayBuffer }[],
    outputs: string[],
    hints?: RunHints,
  ): Promise<RunResult>;
  close(): Promise<void>;
}

interface Work {
  inputs: HostTensor[];
  outputs: string[];
}

interface Done {
  outputs: HostTensor[];
  queueNs: number;
  compute: ComputeTimings;
  /** The batch this request ran in, for its spans: when it started and ended (hrtime ns). */
  batch: { seq: number; requests: number; rows: number; startedNs: bigint; endedNs: bigint };
}

/** Triton's `reason` label of nv_inference_request_failure for a host error code. */
function failureReason(code: HostErrorCode): 'REJECTED' | 'CANCELED' | 'BACKEND' {
  if (code === 'UNAVAILABLE') return 'REJECTED';
  return code === 'CANCELLED' ? 'CANCELED' : 'BACKEND';
}

const DATATYPE_OF_ORT = new Map<string, FixedDatatype>(
  Object.entries(ORT_TYPE_OF).map(([k, v]) => [v, k as FixedDatatype]),
);

/**
 * One loaded model version: validation, its dynamic batcher and its session instances. Results
 * of a batch are split back per request; statistics and metrics are recorded per request.
 */
export class ModelVersionRuntime {
  readonly stats = new InferenceStatistics();
  private readonly batcher: DynamicBatcher<Work>;
  private readonly trimmable = new Map<string, Set<number>>();
  private readonly labels: { model: string; version: string };
  /** Batches run so far: the last part of the batch id a traced request's span records. */
  private batches = 0;
  /** When the latest batch ended (hrtime ns), failed ones included. */
  private lastEndedNs = -1n;

  constructor(
    readonly spec: ModelVersionSpec,
    private readonly executor: BatchExecutor,
    private readonly metrics: HostMetrics,
  ) {
    this.labels = { model: spec.model, version: spec.version };
    this.batcher = new DynamicBatcher<Work>(
      spec.batching,
      // Capacity is every instance: the batcher counts the batches it has running itself.
      () => executor.size,
      (batch) => this.runBatch(batch),
      { onAbandoned: () => metrics.abandoned(this.labels) },
    );
    executor.onCapacity = () => this.batcher.schedule();
    // Output axes (after the batch axis) declared variable may carry a padded input length.
    for (const o of spec.outputs) {
      const offset = spec.maxBatchSize > 0 ? 1 : 0;
      this.trimmable.set(o.name, new Set(o.dims.flatMap((d, i) => (d < 0 ? [i + offset] : []))));
    }
    metrics.touch(this.labels);
  }

  get pending(): number {
    return this.batcher.queued;
  }

  async infer(req: InferRequest): Promise<InferResponse> {
    const start = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - start);
    let inputs: HostTensor[];
    try {
      inputs = validateInferRequest(this.spec, req);
    } catch (err: unknown) {
      this.stats.recordFailure(elapsed());
      this.metrics.requestFailed(this.labels, 'OTHER', elapsed());
      throw err;
    }
    const rows = this.spec.maxBatchSize > 0 ? (inputs[0]?.shape[0] ?? 1) : 1;
    const outputs = req.outputs.length > 0 ? req.outputs : this.spec.outputs.map((o) => o.name);
    this.metrics.pendingChanged(this.labels, 1);
    try {
      const first = inputs[0]?.shape ?? [];
      const length = this.spec.maxBatchSize > 0 ? first.slice(1).reduce((a, b) => a * b, 1) : 0;
      const done = await this.batcher.submit<Done>(
        { inputs, outputs },
        rows,
        req.priority,
        req.timeoutUs,
        length,
        req.signal,
      );
      if (req.span) this.recordSpans(req.span, done, rows);
      this.stats.recordSuccess(elapsed(), done.queueNs, done.compute, rows);
      this.metrics.requestSucceeded(this.labels, elapsed(), done.queueNs, done.compute, rows);
      return {
        id: req.id,
        model: this.spec.model,
        version: this.spec.version,
        outputs: done.outputs,
      };
    } catch (err: unknown) {
      const e = toHostError(err);
      this.stats.recordFailure(elapsed());
      this.metrics.requestFailed(this.labels, failureReason(e.code), elapsed());
      throw e;
    } finally {
      this.metrics.pendingChanged(this.labels, -1);
    }
  }

  /**
   * Runs `inputs` once on every instance, then once alone (the lone-batch session, if any),
   * outside the statistics, before the version serves.
   */
  async warmUp(inputs: HostTensor[]): Promise<void> {
    const outputs = this.spec.outputs.map((o) => o.name);
    const once = (hints: RunHints) =>
      this.executor.run(feedsOf(assembleBatch([inputs]).inputs), outputs, hints);
    await Promise.all(Array.from({ length: this.executor.size }, () => once({})));
    if (this.executor.hasLoneSession) await once({ alone: true });
  }

  /** Stops taking requests, lets queued and running ones finish, then ends the sessions. */
  async drain(): Promise<void> {
    await this.batcher.drain();
    await this.executor.close();
  }

  /**
   * A traced request's children, from the main thread's timings (the ORT workers know nothing
   * of tracing): its wait in the queue, then the batch it ran in. Each request of a batch
   * records the same batch id, so the requests sharing one execution can be found.
   */
  private recordSpans(span: Span, done: Done, rows: number): void {
    const nowNs = process.hrtime.bigint();
    const nowMs = performance.now();
    const at = (ns: bigint) => nowMs - Number(nowNs - ns) / 1e6;
    const { batch } = done;
    const labels = { 'mesh.model': this.spec.model, 'mesh.version': this.spec.version };
    recordChildSpan(
      'queue.wait',
      span,
      at(batch.startedNs - BigInt(done.queueNs)),
      at(batch.startedNs),
      labels,
    );
    recordChildSpan('batch.execute', span, at(batch.startedNs), at(batch.endedNs), {
      ...labels,
      'mesh.batch.id': `${this.spec.model}:${this.spec.version}:${batch.seq}`,
      'mesh.batch.requests': batch.requests,
      'mesh.batch.rows': batch.rows,
      'mesh.request.rows': rows,
      'mesh.compute.input_ns': done.compute.inputNs,
      'mesh.compute.infer_ns': done.compute.inferNs,
      'mesh.compute.output_ns': done.compute.outputNs,
    });
  }

  private async runBatch(batch: QueuedItem<Work>[]): Promise<void> {
    const started = process.hrtime.bigint();
    const seq = ++this.batches;
    const { inputs, layout } = assembleBatch(batch.map((b) => b.payload.inputs));
    const outputNames = [...new Set(batch.flatMap((b) => b.payload.outputs))];
    // A lone request may take every core (the lone-batch session): nothing waits behind its
    // batch, and none of its requests waited for another batch to end. A batch that did wait is
    // load even with nothing behind it, and runs on an instance: with one instance, the batcher
    // runs one batch at a time, so under load each batch would otherwise find the queue empty.
    const waited = batch.some((item) => item.enqueuedNs < this.lastEndedNs);
    let result: RunResult;
    try {
      result = await this.executor.run(feedsOf(inputs), outputNames, {
        alone: this.batcher.queued === 0 && !waited,
      });
    } catch (err: unknown) {
      throw err instanceof HostError
        ? err
        : new InferenceExecutionError(`model execution failed: ${(err as Error).message}`);
    } finally {
      this.lastEndedNs = process.hrtime.bigint();
    }
    const ended = this.lastEndedNs;
    const compute = { inputNs: result.inputNs, inferNs: result.inferNs, outputNs: result.outputNs };
    const batchRows = layout.rows.reduce((a, b) => a + b, 0);
    this.stats.recordExecution(batchRows, compute);
    const executed = {
      seq,
      requests: batch.length,
      rows: batchRows,
      startedNs: started,
      endedNs: ended,
    };
    const first = inputs[0];
    const real = batch.reduce(
      (n, b) => n + (b.payload.inputs[0]?.shape ?? []).reduce((x, y) => x * y, 1),
      0,
    );
    this.metrics.executed(
      this.labels,
      first ? first.shape.reduce((x, y) => x * y, 1) : 0,
      real,
      result.lone === true,
    );
    const outs = result.outputs.map((o) => this.toHostTensor(o));
    batch.forEach((item, i) => {
      const mine = outs
        .filter((o) => item.payload.outputs.includes(o.name))
        .map((o) =>
          this.spec.maxBatchSize > 0
            ? splitOutput(o, layout, i, this.trimmable.get(o.name) ?? new Set())
            : o,
        );
      item.resolve({
        outputs: mine,
        queueNs: Number(started - item.enqueuedNs),
        compute,
        batch: executed,
      } satisfies Done);
    });
  }

  private toHostTensor(o: {
    name: string;
    type: string;
    dims: number[];
    buffer: ArrayBuffer;
  }): HostTensor {
    const datatype = DATATYPE_OF_ORT.get(o.type);
    if (!datatype)
      throw new InferenceExecutionError(`output '${o.name}' has unsupported type ${o.type}`);
    const data = new Uint8Array(o.buffer);
    if (data.byteLength !== o.dims.reduce((a, b) => a * b, 1) * ELEMENT_BYTES[datatype]) {
      throw new InferenceExecutionError(
        `output '${o.name}' has ${data.byteLength} bytes for shape [${o.dims.join(',')}]`,
      );
    }
    return { name: o.name, datatype, shape: o.dims, data };
  }
}
