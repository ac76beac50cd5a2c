import type { FixedDatatype } from '@mesh/kserve';

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
  /** 0 = the model's default priority level. */
  priority: number;
  /** 0 = the model's default timeout. */
  timeoutUs: number;
}

export interface InferResponse {
  id: string;
  model: string;
  version: string;
  outputs: HostTensor[];
}

/** Time spent in each phase of one batch execution, in nanoseconds. */
export interface ComputeTimings {
  inputNs: number;
  inferNs: number;
  outputNs: number;
}
