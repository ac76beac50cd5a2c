/** Messages between the bench and a raw-ORT worker thread. */
export interface RawWorkerInit {
  modelPath: string;
  intraOpThreads: number;
  allowSpinning: boolean;
}

export interface RawBatch {
  items: number;
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
  seconds: number;
}
