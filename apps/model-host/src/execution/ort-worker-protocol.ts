/** Messages between the host's event loop and an ORT session worker thread. */

import type { ValueInfo } from '@mesh/model-repository';

// A graph value's name, type and shape, as the config.pbtxt ↔ ONNX signature check
// (@mesh/model-repository, which the model CLI runs too) reads them.
export type { ValueInfo };

export interface SessionOptionsData {
  modelPath: string;
  intraOpThreads: number;
  interOpThreads: number;
  graphOptimizationLevel: 'disabled' | 'basic' | 'extended' | 'all';
  /** ORT's `session.intra_op.allow_spinning` / `session.inter_op.allow_spinning`. */
  allowSpinning: boolean;
  /**
   * Leave spinning on after a run (ORT's own spin-then-park, some tens of ms) instead of
   * `session.force_spinning_stop`; only with `allowSpinning`. Unset: stop as each run returns.
   */
  spinBetweenRuns?: boolean;
  /**
   * Nice value (1–19) for the intra-op pool threads ORT starts for this session; 0 or unset: they
   * keep the worker's. Linux only, and only for sessions of 2 threads or more (1 has no pool).
   */
  poolThreadNice?: number;
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
  | {
      kind: 'ready';
      inputs: ValueInfo[];
      outputs: ValueInfo[];
      /** The nice value the session's pool threads started with (0: left as they were). */
      poolNice: number;
      /** This worker's own nice value after the session started (see `poolThreadNice`). */
      threadNice: number;
    }
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
