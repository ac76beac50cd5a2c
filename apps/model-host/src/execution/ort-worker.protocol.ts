/** Messages between the host's event loop and an ORT session worker thread. */

/** KServe datatype name → onnxruntime tensor type name. */
export const ORT_TYPE_OF = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  BF16: 'bfloat16',
  FP32: 'float32',
  FP64: 'float64',
} as const;

export type OrtTypeName = (typeof ORT_TYPE_OF)[keyof typeof ORT_TYPE_OF];

export interface SessionOptionsData {
  modelPath: string;
  intraOpThreads: number;
  interOpThreads: number;
  graphOptimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
  /** ORT's `session.intra_op.allow_spinning` / `session.inter_op.allow_spinning`. */
  allowSpinning: boolean;
  /** ORT's log level (0 verbose … 4 fatal); unset: ORT's default, warnings included. */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
}

/** A tensor crossing the thread boundary: its bytes travel in the transfer list. */
export interface WireTensor {
  name: string;
  type: string;
  dims: number[];
  buffer: ArrayBuffer;
}

export interface ValueInfo {
  name: string;
  type: string;
  /** Dimensions as the ONNX graph declares them; symbolic dims are -1. */
  shape: number[];
}

export interface RunMessage {
  kind: 'run';
  id: number;
  feeds: WireTensor[];
  outputs: string[];
}

/**
 * Ends the worker: it releases its session (ORT's weights, arena and intra-op threads) on its
 * own thread, then lets the thread exit. Terminating the thread instead leaves that to V8's
 * teardown, which is not guaranteed to run the session's finalizer.
 */
export interface CloseMessage {
  kind: 'close';
}

export type HostMessage = RunMessage | CloseMessage;

export type WorkerReply =
  | { kind: 'ready'; inputs: ValueInfo[]; outputs: ValueInfo[] }
  | { kind: 'init-failed'; message: string }
  | {
      kind: 'result';
      id: number;
      outputs: WireTensor[];
      inputNs: number;
      inferNs: number;
      outputNs: number;
    }
  | { kind: 'run-failed'; id: number; message: string };
