import type { BatchExecutor } from '../core/model-version-runtime';
import type { RunHints, RunResult } from '../execution/session-pool-client';

/**
 * `size` instances that hold every batch until the test finishes it, as busy ORT sessions would;
 * a run beyond `size` at once is refused.
 */
export class HeldInstances implements BatchExecutor {
  readonly started: Array<(r: RunResult) => void> = [];
  /** The `alone` hint of each run, in start order. */
  readonly alone: boolean[] = [];
  private busy = 0;
  onCapacity?: () => void;

  constructor(readonly size = 1) {}

  run(_feeds: unknown, _outputs: unknown, hints: RunHints = {}): Promise<RunResult> {
    if (this.busy >= this.size) return Promise.reject(new Error('no idle session instance'));
    this.busy += 1;
    this.alone.push(hints.alone === true);
    return new Promise<RunResult>((resolve) => this.started.push(resolve)).finally(() => {
      this.busy -= 1;
    });
  }

  /** Finishes the `k`-th started batch with `rows` rows of `y` (1, 2 and 3 ns per phase). */
  finish(k: number, rows = 1, extra: Partial<RunResult> = {}): void {
    this.started[k]!({
      outputs: [{ name: 'y', type: 'float32', dims: [rows, 1], buffer: new ArrayBuffer(4 * rows) }],
      inputNs: 1,
      inferNs: 2,
      outputNs: 3,
      ...extra,
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
