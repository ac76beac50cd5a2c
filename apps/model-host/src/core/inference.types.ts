import type { Span } from '@mesh/telemetry';
import type { FixedDatatype, KServeDatatype } from '@mesh/kserve';

/**
 * A tensor on the host's data plane: little-endian element bytes plus shape and datatype.
 * Both transports (gRPC raw/typed contents, HTTP JSON) convert into this at the edge.
 */
export interface HostTensor {
  name: string;
  datatype: FixedDatatype;
  shape: number[];
  data: Uint8Array;
}

/** A validated-at-the-edge shape of one inference call; checked against the model in the core. */
export interface InferRequest {
  id: string;
  model: string;
  /** '' = the latest ready version. */
  version: string;
  inputs: HostTensor[];
  /** Requested outputs; empty = all outputs. */
  outputs: string[];
  /**
   * Triton's classification extension: output name → how many top classes to return instead
   * of the tensor (as BYTES strings "value:index[:label]").
   */
  classification?: Record<string, number>;
  /** 0 = the model's default priority level. */
  priority: number;
  /** 0 = the model's default timeout. */
  timeoutUs: number;
  /** Aborts when the caller leaves; a request still queued then is dropped, never run. */
  signal?: AbortSignal;
  /**
   * The request's server span, while tracing is on and the caller sent a `traceparent`: its
   * queue wait and batch execution are recorded under it, from main-thread timings.
   */
  span?: Span;
}

/** A result tensor: the model's own datatypes, or BYTES (4-byte length + bytes per element). */
export interface OutputTensor {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  data: Uint8Array;
}

export interface InferResponse {
  id: string;
  model: string;
  version: string;
  outputs: OutputTensor[];
}

/** Time spent in each phase of one batch execution, in nanoseconds. */
export interface ComputeTimings {
  inputNs: number;
  inferNs: number;
  outputNs: number;
}
