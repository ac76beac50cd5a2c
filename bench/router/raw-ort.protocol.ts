/** Messages between the bench and a raw-ORT worker thread. */
export interface RawWorkerInit {
  modelPath: string;
  intraOpThreads: number;
  allowSpinning: boolean;
}

export interface RawBatch {
  items: number;
  /** Real (unpadded) tokens in the batch, to check that a timed run sampled the corpus's mix. */
  tokens: number;
  tensors: { name: string; dims: number[]; buffer: ArrayBuffer }[];
}

export interface RawWorkerJob {
  batches: RawBatch[];
  warmupRuns: number;
  durationMs: number;
}

export interface RawWorkerReply {
  /** Per batch run, ms. */
  latencies: number[];
  items: number;
  tokens: number;
  seconds: number;
}
