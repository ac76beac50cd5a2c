import { performance } from 'node:perf_hooks';
import { SampledAccessLog } from '@mesh/telemetry';
import { ERROR_STATUS } from './error-status-map';
import { toHostError } from './model-host.errors';

/** One inference call as the host answered it. */
export interface HostAccessEntry {
  /** The caller's `x-request-id` (the router sends its own), else the request's `id`. */
  requestId: string;
  transport: 'http' | 'grpc';
  /** `ModelInfer`, `ModelStreamInfer` or `POST infer`. */
  method: string;
  model: string;
  /** The version that answered; the requested one ('' = latest) when the call failed first. */
  version: string;
  /** HTTP status, or the gRPC status code. */
  status: number;
  failed: boolean;
  latencyMs: number;
}

export type HostCall = Pick<
  HostAccessEntry,
  'requestId' | 'transport' | 'method' | 'model' | 'version'
>;

/**
 * The host's access log: one line per inference request (successes sampled at
 * `MODEL_HOST_ACCESS_LOG_SAMPLE`), carrying the request id the router forwarded so a request
 * can be followed from the router's access log to the host that ran it. Written at `debug`: the
 * router already logs each request at `info`, so the default level shows one line per request
 * (`LOG_LEVEL=debug` on the host shows these too).
 */
export class HostAccessLog extends SampledAccessLog<HostAccessEntry> {
  protected override readonly level = 'debug';

  /** Runs one inference call and records how it ended. */
  async around<T extends { version: string }>(call: HostCall, run: () => Promise<T>): Promise<T> {
    const start = performance.now();
    let version = call.version;
    let status: number = call.transport === 'http' ? 200 : 0;
    let failed = false;
    try {
      const res = await run();
      version = res.version;
      return res;
    } catch (err: unknown) {
      const mapped = ERROR_STATUS[toHostError(err).code];
      status = call.transport === 'http' ? mapped.http : mapped.grpc;
      failed = true;
      throw err;
    } finally {
      this.record({
        ...call,
        version,
        status,
        failed,
        latencyMs: Math.round((performance.now() - start) * 1000) / 1000,
      });
    }
  }
}

/** The id a call is logged under: the `x-request-id` it came with, else its own `id`. */
export function requestIdOf(header: unknown, id: string | undefined): string {
  return typeof header === 'string' && header !== '' ? header : (id ?? '');
}
