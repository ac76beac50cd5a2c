import { Counter, Gauge, type Registry } from 'prom-client';
import type { ComputeTimings } from './inference.types';

type Labels = { model: string; version: string };

const us = (ns: number): number => Math.round(ns / 1000);

/**
 * Prometheus metrics with Triton's names and labels, so dashboards and HPA rules written for
 * Triton work unchanged. Durations are cumulative microsecond counters, as Triton exports them.
 */
export class HostMetrics {
  private readonly success: Counter<'model' | 'version'>;
  private readonly failure: Counter<'model' | 'version' | 'reason'>;
  private readonly count: Counter<'model' | 'version'>;
  private readonly execCount: Counter<'model' | 'version'>;
  private readonly pending: Gauge<'model' | 'version'>;
  private readonly requestUs: Counter<'model' | 'version'>;
  private readonly queueUs: Counter<'model' | 'version'>;
  private readonly inputUs: Counter<'model' | 'version'>;
  private readonly inferUs: Counter<'model' | 'version'>;
  private readonly outputUs: Counter<'model' | 'version'>;
  private readonly elements: Counter<'model' | 'version' | 'kind'>;
  private readonly abandonedCount: Counter<'model' | 'version'>;
  private readonly loneCount: Counter<'model' | 'version'>;
  private readonly usedMb: Gauge;
  private readonly versionMb: Gauge<'model' | 'version'>;

  constructor(readonly registry: Registry) {
    const labelNames = ['model', 'version'] as const;
    const counter = (name: string, help: string) =>
      new Counter({ name, help, labelNames, registers: [registry] });
    this.success = counter(
      'nv_inference_request_success',
      'Number of successful inference requests, all batch sizes',
    );
    this.failure = new Counter({
      name: 'nv_inference_request_failure',
      help: 'Number of failed inference requests, all batch sizes',
      labelNames: ['model', 'version', 'reason'],
      registers: [registry],
    });
    this.count = counter('nv_inference_count', 'Number of inferences performed (batch rows)');
    this.execCount = counter('nv_inference_exec_count', 'Number of model executions performed');
    this.pending = new Gauge({
      name: 'nv_inference_pending_request_count',
      help: 'Instantaneous number of pending requests awaiting execution per model',
      labelNames,
      registers: [registry],
    });
    this.requestUs = counter(
      'nv_inference_request_duration_us',
      'Cumulative inference request duration in microseconds',
    );
    this.queueUs = counter(
      'nv_inference_queue_duration_us',
      'Cumulative inference queuing duration in microseconds',
    );
    this.inputUs = counter(
      'nv_inference_compute_input_duration_us',
      'Cumulative compute input duration in microseconds',
    );
    this.inferUs = counter(
      'nv_inference_compute_infer_duration_us',
      'Cumulative compute inference duration in microseconds',
    );
    this.outputUs = counter(
      'nv_inference_compute_output_duration_us',
      'Cumulative inference compute output duration in microseconds',
    );
    // Not a Triton metric: the host pads requests of different lengths into one batch, and
    // padded ÷ real elements is what max_padding_ratio and the batch forming trade against.
    this.elements = new Counter({
      name: 'mesh_host_batch_elements_total',
      help: 'Elements of the first input in executed batches: kind="padded" (rows × padded length) and kind="real" (the requests own)',
      labelNames: ['model', 'version', 'kind'],
      registers: [registry],
    });
    this.abandonedCount = counter(
      'mesh_host_requests_abandoned_total',
      'Requests taken out of the queue, never run, because their caller left (gRPC cancel, closed HTTP connection)',
    );
    this.loneCount = counter(
      'mesh_host_lone_executions_total',
      'Executions run on the lone-batch session (every instance idle, nothing queued): lone_batch_threads',
    );
    // Not Triton metrics: what a placer adds up against the host's memory budget.
    this.usedMb = new Gauge({
      name: 'mesh_host_memory_used_mb',
      help: 'Sum of mesh_host_model_memory_mb over the versions that serve',
      registers: [registry],
    });
    this.versionMb = new Gauge({
      name: 'mesh_host_model_memory_mb',
      help: 'Footprint a serving version counts for: max(declared memory_mb_v<N>, RSS measured at load)',
      labelNames,
      registers: [registry],
    });
  }

  /** Registered only with a budget: a gauge at 0 would read as "no room" rather than unlimited. */
  memoryBudget(mb: number): void {
    new Gauge({
      name: 'mesh_host_memory_budget_mb',
      help: 'MODEL_HOST_MEMORY_BUDGET_MB: resident MB the loaded versions may add up to',
      registers: [this.registry],
    }).set(mb);
  }

  /** A version's footprint while it serves; `undefined` removes it (unloaded or retired). */
  versionMemory(l: Labels, mb: number | undefined): void {
    if (mb === undefined) this.versionMb.remove(l);
    else this.versionMb.set(l, mb);
  }

  memoryUsed(mb: number): void {
    this.usedMb.set(mb);
  }

  pendingChanged(l: Labels, delta: number): void {
    this.pending.inc(l, delta);
  }

  requestSucceeded(
    l: Labels,
    requestNs: number,
    queueNs: number,
    c: ComputeTimings,
    rows: number,
  ): void {
    this.success.inc(l);
    this.count.inc(l, rows);
    this.requestUs.inc(l, us(requestNs));
    this.queueUs.inc(l, us(queueNs));
    this.inputUs.inc(l, us(c.inputNs));
    this.inferUs.inc(l, us(c.inferNs));
    this.outputUs.inc(l, us(c.outputNs));
  }

  /**
   * `reason` as Triton: REJECTED (queue full / timeout), CANCELED (the caller left), BACKEND
   * (model failed), OTHER.
   */
  requestFailed(
    l: Labels,
    reason: 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER',
    requestNs: number,
  ): void {
    this.failure.inc({ ...l, reason });
    this.requestUs.inc(l, us(requestNs));
  }

  /** A queued request dropped before dispatch because its caller left. */
  abandoned(l: Labels): void {
    this.abandonedCount.inc(l);
  }

  executed(l: Labels, paddedElements: number, realElements: number, lone = false): void {
    this.execCount.inc(l);
    if (lone) this.loneCount.inc(l);
    this.elements.inc({ ...l, kind: 'padded' }, paddedElements);
    this.elements.inc({ ...l, kind: 'real' }, realElements);
  }

  /** Makes a freshly loaded version visible with zeros, as Triton does. */
  touch(l: Labels): void {
    for (const c of [
      this.success,
      this.count,
      this.execCount,
      this.requestUs,
      this.queueUs,
      this.inputUs,
      this.inferUs,
      this.outputUs,
      this.abandonedCount,
      this.loneCount,
    ]) {
      c.inc(l, 0);
    }
    this.elements.inc({ ...l, kind: 'padded' }, 0);
    this.elements.inc({ ...l, kind: 'real' }, 0);
    this.pending.set(l, 0);
  }
}
