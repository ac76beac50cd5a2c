import type { EncodedBatch, OutputTensor, Prediction, TextInput } from '@mesh/preprocessing';

/** What the chunk runner needs of a pinned model version (a ServableVersion from @mesh/inference). */
export interface PinnedModel {
  readonly model: string;
  readonly version: number;
  readonly pipeline: string;
  readonly kind: 'classification' | 'embedding';
  readonly hardMaxChars: number;
  /** config.pbtxt `max_batch_size` (0 = no batching: one row per call). */
  readonly maxBatchSize: number;
  encode(items: readonly TextInput[]): EncodedBatch;
  postprocess(output: OutputTensor, batch: EncodedBatch): Prediction[];
}

/** What a chunk's call tells the backend besides its rows. */
export interface InferMeta {
  requestId: string;
  priority: 1 | 2;
  /** The call's client span as W3C `traceparent` (traced jobs only): the host continues it. */
  traceparent?: string;
}

/**
 * The worker's inference path, the same one the router uses (@mesh/inference): its own
 * version catalog and backend discovery, so routability is decided here, not by asking a router.
 */
export interface ChunkInference<V extends PinnedModel = PinnedModel> {
  /** First backend discovery; chunks are taken only after it. */
  start(): Promise<void>;
  close(): Promise<void>;
  servable(model: string, version: number): V | undefined;
  /** Why (model, version) cannot take traffic from this worker now, or undefined. */
  unroutableReason(model: string, version: number): string | undefined;
  /**
   * True when (model, version) is resident on no backend while some backend is up: a cold
   * start the placer answers. Absent: never (chunks simply wait for the version).
   */
  isCold?(model: string, version: number): boolean;
  /** One discovery round now (after the placer announced a load); absent: none. */
  refresh?(): Promise<void>;
  infer(version: V, batch: EncodedBatch, meta: InferMeta): Promise<OutputTensor>;
}
