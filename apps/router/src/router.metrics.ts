import { Counter, Histogram, type Registry } from 'prom-client';
import type { VersionTraffic } from './signals/version-traffic';

export type Stage = 'queue' | 'tokenize' | 'infer' | 'postprocess';

export type PredictMethod = 'predict' | 'predict_batch' | 'tokenize';

/**
 * Labels of one answered request; what the request never got to is empty (`tenant` before the
 * key was accepted, `task` before the body was valid, `model`/`version` before routing).
 */
export interface RequestLabels {
  transport: 'http' | 'grpc';
  method: PredictMethod;
  tenant: string;
  task: string;
  model: string;
  version: string;
  /** `ok` or the error code. */
  outcome: string;
}

/** What a caller got: `ok`, or the mesh error code of its answer. */
export interface Answer {
  transport: RequestLabels['transport'];
  method: PredictMethod;
  served: { tenant?: string; task?: string; model?: string; version?: number } | undefined;
  outcome: string;
}

/** The counter's labels of an answer: what the request never got to is an empty value. */
export function answerLabels({ transport, method, served, outcome }: Answer): RequestLabels {
  return {
    transport,
    method,
    tenant: served?.tenant ?? '',
    task: served?.task ?? '',
    model: served?.model ?? '',
    version: served?.version === undefined ? '' : String(served.version),
    outcome,
  };
}

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The router's Prometheus series, registered on the process's own registry. */
export class RouterMetrics {
  private readonly requests: Counter<keyof RequestLabels>;
  private readonly latency: Histogram<keyof RequestLabels>;
  private readonly stages: Histogram<'stage' | 'model' | 'version'>;
  private readonly items: Counter<'model' | 'version'>;
  private readonly cache: Counter<'model' | 'version' | 'result'>;
  private readonly shadowRequests: Counter<'model' | 'version' | 'outcome'>;
  private readonly shadowAgree: Counter<'model' | 'version' | 'agree'>;
  private readonly merged: Histogram<'model' | 'version'>;
  private readonly coldStarts: Histogram<'model' | 'version' | 'outcome'>;

  constructor(
    registry: Registry,
    private readonly traffic?: VersionTraffic,
  ) {
    const labelNames = [
      'transport',
      'method',
      'tenant',
      'task',
      'model',
      'version',
      'outcome',
    ] as const;
    this.requests = new Counter({
      name: 'mesh_router_requests_total',
      help: 'Predict API answers, refusals at the edge included, by outcome (ok or error code)',
      labelNames,
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'mesh_router_request_duration_seconds',
      help: 'Time from receiving a request to answering it (requests that passed auth and validation)',
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.stages = new Histogram({
      name: 'mesh_router_stage_duration_seconds',
      help: 'Time spent per stage: queue (admission to start), tokenize, infer, postprocess',
      labelNames: ['stage', 'model', 'version'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
    this.items = new Counter({
      name: 'mesh_router_items_total',
      help: 'Texts predicted (a batch counts each text)',
      labelNames: ['model', 'version'],
      registers: [registry],
    });
    this.cache = new Counter({
      name: 'mesh_router_cache_requests_total',
      help: 'Response cache lookups by result (hit or miss)',
      labelNames: ['model', 'version', 'result'],
      registers: [registry],
    });
    this.shadowRequests = new Counter({
      name: 'mesh_router_shadow_requests_total',
      help: 'Requests mirrored to a shadow version, by outcome (ok, error code, DROPPED, SKIPPED)',
      labelNames: ['model', 'version', 'outcome'],
      registers: [registry],
    });
    this.shadowAgree = new Counter({
      name: 'mesh_router_shadow_agreement_total',
      help: 'Mirrored items whose shadow label equals the primary label (agree=true) or not',
      labelNames: ['model', 'version', 'agree'],
      registers: [registry],
    });
    this.merged = new Histogram({
      name: 'mesh_router_coalesced_requests',
      help: 'Single predicts carried by one backend call when coalescing is on (1 = sent alone)',
      labelNames: ['model', 'version'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [registry],
    });
    this.coldStarts = new Histogram({
      name: 'mesh_router_cold_start_wait_seconds',
      help: 'Time a request waited for a version resident nowhere to be loaded (loaded or timeout)',
      labelNames: ['model', 'version', 'outcome'],
      // Loads take from under a second (a small ONNX file) to minutes (a large one).
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
      registers: [registry],
    });
  }

  /** One backend call went out carrying `requests` coalesced predicts. */
  coalesced(model: string, version: number, requests: number): void {
    this.merged.observe({ model, version: String(version) }, requests);
  }

  /** A request's cold-start wait ended: the version was loaded, or the wait ran out. */
  coldStart(model: string, version: number, outcome: 'loaded' | 'timeout', seconds: number): void {
    this.coldStarts.observe({ model, version: String(version), outcome }, seconds);
  }

  /** A request got its version: counted in flight until `request` reports it finished. */
  routed(model: string, version: number): void {
    this.traffic?.begin(model, version);
  }

  /**
   * One answer the caller got, counted once by the edge that wrote it (HTTP hook, gRPC
   * recorder), so refusals before any handler ran (auth, body, media type, method) are in the
   * same series as the requests the predict path served.
   */
  answered(answer: Answer): void {
    this.requests.inc(answerLabels(answer));
  }

  /**
   * A request the predict path finished (latency and traffic signals; the edge counts it);
   * `routed` false when it never got to its version (refused before, or still waiting for a
   * cold start): then it is not in flight and not in the traffic signals.
   */
  request(labels: RequestLabels, seconds: number, routed = labels.model !== ''): void {
    this.latency.observe(labels, seconds);
    if (routed && labels.model !== '') {
      const { task, model, version, outcome } = labels;
      this.traffic?.end(task, model, Number(version), outcome, seconds * 1000);
    }
  }

  stage(stage: Stage, model: string, version: number, seconds: number): void {
    this.stages.observe({ stage, model, version: String(version) }, seconds);
  }

  predicted(model: string, version: number, count: number): void {
    this.items.inc({ model, version: String(version) }, count);
  }

  shadow(model: string, version: number, outcome: string): void {
    this.shadowRequests.inc({ model, version: String(version), outcome });
  }

  shadowAgreement(model: string, version: number, agree: boolean): void {
    this.shadowAgree.inc({ model, version: String(version), agree: String(agree) });
  }

  cacheLookup(model: string, version: number, hit: boolean): void {
    this.cache.inc({ model, version: String(version), result: hit ? 'hit' : 'miss' });
  }
}
