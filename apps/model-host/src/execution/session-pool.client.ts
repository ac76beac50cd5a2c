import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type {
  RunMessage,
  SessionOptionsData,
  ValueInfo,
  WireTensor,
  WorkerReply,
} from './ort-worker.protocol';

export interface RunResult {
  outputs: WireTensor[];
  inputNs: number;
  inferNs: number;
  outputNs: number;
}

interface Pending {
  resolve: (r: RunResult) => void;
  reject: (e: Error) => void;
}

interface Instance {
  worker: Worker;
  busy: boolean;
  pending: Map<number, Pending>;
}

/** Where the worker script lives: compiled `.js` beside this file, or `.ts` under a transpiler. */
function workerEntry(): { file: string; execArgv: string[] } {
  const js = join(__dirname, 'ort-session.worker.js');
  if (existsSync(js)) return { file: js, execArgv: [] };
  return {
    file: join(__dirname, 'ort-session.worker.ts'),
    execArgv: ['--require', require.resolve('tsx/cjs')],
  };
}

/**
 * One ORT session per worker thread, `count` workers per model version (Triton's
 * instance_group.count). Each instance runs one batch at a time; the batcher asks for
 * free instances and hands work over with its buffers in the transfer list (no copy).
 */
export class SessionPoolClient {
  private readonly instances: Instance[] = [];
  private nextId = 1;
  private closed = false;
  inputs: ValueInfo[] = [];
  outputs: ValueInfo[] = [];

  private constructor() {}

  /** Starts `count` workers and resolves once every session is created. */
  static async start(count: number, options: SessionOptionsData): Promise<SessionPoolClient> {
    const pool = new SessionPoolClient();
    try {
      await Promise.all(Array.from({ length: count }, () => pool.spawn(options)));
    } catch (err: unknown) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  get size(): number {
    return this.instances.length;
  }

  get idleCount(): number {
    return this.instances.filter((i) => !i.busy).length;
  }

  /** Runs one batch on an idle instance (the caller checks `idleCount` first). */
  run(feeds: WireTensor[], outputs: string[]): Promise<RunResult> {
    const inst = this.instances.find((i) => !i.busy);
    if (this.closed) return Promise.reject(new Error('session pool is closed'));
    if (!inst) return Promise.reject(new Error('no idle session instance'));
    inst.busy = true;
    const id = this.nextId++;
    const msg: RunMessage = { kind: 'run', id, feeds, outputs };
    return new Promise<RunResult>((resolve, reject) => {
      inst.pending.set(id, { resolve, reject });
      inst.worker.postMessage(
        msg,
        feeds.map((f) => f.buffer),
      );
    }).finally(() => {
      inst.busy = false;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.instances.map((i) => i.worker.terminate()));
  }

  private spawn(options: SessionOptionsData): Promise<void> {
    const entry = workerEntry();
    const worker = new Worker(entry.file, { workerData: options, execArgv: entry.execArgv });
    const inst: Instance = { worker, busy: false, pending: new Map() };
    this.instances.push(inst);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        switch (reply.kind) {
          case 'ready':
            this.inputs = reply.inputs;
            this.outputs = reply.outputs;
            resolve();
            return;
          case 'init-failed':
            reject(new Error(reply.message));
            return;
          case 'result':
          case 'run-failed':
            this.settle(inst, reply);
            return;
        }
      });
      worker.on('error', (err) => {
        reject(err);
        this.failAll(inst, err);
      });
      worker.on('exit', (code) => {
        reject(new Error(`session worker exited with code ${code}`));
        this.failAll(inst, new Error(`session worker exited with code ${code}`));
      });
    });
  }

  private settle(inst: Instance, reply: Extract<WorkerReply, { id: number }>): void {
    const p = inst.pending.get(reply.id);
    if (!p) return;
    inst.pending.delete(reply.id);
    if (reply.kind === 'run-failed') p.reject(new Error(reply.message));
    else p.resolve(reply);
  }

  private failAll(inst: Instance, err: Error): void {
    for (const p of inst.pending.values()) p.reject(err);
    inst.pending.clear();
    // A dead worker never becomes idle again.
    inst.busy = true;
  }
}
