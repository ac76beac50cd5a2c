import { SampledAccessLog } from '@mesh/telemetry';

/** One line per request, written when the answer has been sent. */
export interface AccessEntry {
  requestId: string;
  transport: 'http' | 'grpc';
  /** HTTP `METHOD /path` or the gRPC method name. */
  method: string;
  tenant?: string;
  task?: string;
  model?: string;
  version?: number;
  /** HTTP status, or the gRPC status code. */
  status: number;
  /** True when the answer is an error (4xx/5xx, non-OK gRPC). */
  failed: boolean;
  latencyMs: number;
}

/**
 * The router's access log: request id, tenant, task, model, version, status and latency per
 * request, successes sampled at `ROUTER_ACCESS_LOG_SAMPLE`.
 */
export class AccessLog extends SampledAccessLog<AccessEntry> {}
