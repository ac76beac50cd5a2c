import type { FixedDatatype } from '@mesh/kserve';
import type { BatchingPolicy } from '../batching/batching.types';

/** A config tensor as the host checks it: dims exclude the implicit batch dimension. */
export interface TensorSpec {
  name: string;
  datatype: FixedDatatype;
  dims: number[];
}

/** What the core needs to know about one served model version. */
export interface ModelVersionSpec {
  model: string;
  version: string;
  maxBatchSize: number;
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  batching: BatchingPolicy;
  /** Class labels per output name (label_filename), for the classification extension. */
  labels?: Record<string, string[]>;
  /** Limits read from the ONNX graph; absent when the graph has no recognisable embedding. */
  inputBounds?: InputBounds;
  /** Session instances it runs: the instance_group count, or the host's choice without one. */
  instances?: number;
  /** Resident MB its sessions added when built (RSS delta; whole MB, at least 1). */
  measuredMemoryMb?: number;
  /** MB it counts for against the memory budget: max(declared memory_mb_v<N>, measured). */
  memoryMb?: number;
}

/** Rows of a table that a client-supplied input indexes, and how messages name that table. */
export interface TableBound {
  rows: number;
  table: string;
}

/**
 * What the model's own tables allow, so out-of-range client input is refused before ORT sees
 * it (ORT would fail the whole batch with an internal error). Read at load time.
 */
export interface InputBounds {
  /** Per input name: the embedding table its values index (ids must be 0..rows-1). */
  ids: Record<string, TableBound>;
  /** The position table: bounds the last dimension (the sequence) of `input`. */
  sequence?: TableBound & { input: string };
  /**
   * Dimensions the graph gives one symbolic name (e.g. `sequence` of input_ids and
   * attention_mask): a request must give them one size, or the model fails inside ORT.
   */
  sameSize?: { dim: string; members: { input: string; axis: number }[] }[];
}

/** The shape a request tensor must have: the batch dim (-1) first when the model batches. */
export function fullDims(spec: ModelVersionSpec, t: TensorSpec): number[] {
  return spec.maxBatchSize > 0 ? [-1, ...t.dims] : [...t.dims];
}
