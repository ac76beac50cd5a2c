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
}

/** The shape a request tensor must have: the batch dim (-1) first when the model batches. */
export function fullDims(spec: ModelVersionSpec, t: TensorSpec): number[] {
  return spec.maxBatchSize > 0 ? [-1, ...t.dims] : [...t.dims];
}
