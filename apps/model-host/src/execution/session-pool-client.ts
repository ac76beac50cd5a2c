import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type {
  CloseMessage,
  RunMessage,
  SessionOptionsData,
  ValueInfo,
  WireTensor,
  WorkerReply,
} from './ort-worker-protocol';
import { instanceSessionOptions, loneSessionOptions } from './pool-session-options';

export interface RunResult {
  outputs: WireTensor[];
  inputNs: number;
  inferNs: number;
  outputNs: number;
  /** Ran on the lone-batch session (every instance idle, nothing else waiting). */
  lone?: boolean;
}

/** How a batch may run; `alone`: nothing else is queued behind it. */
export interface RunHints {
  alone?: boolean;
}

interface Pending {
  resolve: (r: RunResult) => void;
  reject: (e: Error) => void;
}

interface Instance {
  worker: Worker;
  busy: boolean;
  ready: boolean;
  /** The lone-batch session: not an instance, so never counted in `size`. */
  lone: boolean;
  pending: Map<number, Pending>;
}

/** Where the worker script lives: compiled `.js` beside this file, or `.ts` under a transpiler. */
function workerEntry(): { file: string; execArgv: string[] } {
  const js = join(__dirname, 'ort-session-worker.js');
  if (existsSync(js)) return { file: js, execArgv: [] };
  return {
    file: join(__dirname, 'ort-session-worker.ts'),
    execArgv: ['--require', require.resolve('tsx/cjs')],
  };
}

/**
 * How long the lone-batch session rests after a run that another batch overlapped. A batch that
 * starts on an instance during a lone run puts one thread more than there are cores to work, and
 * both runs stall at each operator (on a 2-vCPU VM, closed loops of 32 ran about 7 % fewer requests
 * per second, with a 12 % higher p99, than with no lone session at all). Such overlap means requests
 * arrive faster than one lone run at a time serves them; meanwhile a batch that finds the
 * instances idle runs on one of them, and the lone session is tried again once the rest is over.
 */
export const LONE_REST_MS = 1000;

/** How long a closing worker may take to release its session before it is terminated. */
export const CLOSE_GRACE_MS = 5000;

/** Asks a worker to release its session and exit; resolves once the thread is gone. */
function closeWorker(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // A worker that already exited (or never started) has nothing to release.
    if (worker.threadId < 0) {
      clearTimeout(timer);
      resolve();
      return;
    }
    worker.postMessage({ kind: 'close' } satisfies CloseMessage);
  });
}

/** Options of a pool beyond its sessions; `now` (ms) is injected by tests. */
export interface SessionPoolOptions {
  now?: () => number;
}

/**
 * One ORT session per worker thread, `count` workers per model version (Triton's
 * instance_group.count). Each instance runs one batch at a time; the batcher asks for
 * free instances and hands work over with its buffers in the transfer list (no copy).
 *
 * With `loneBatchThreads`, one more worker holds a session with that many intra-op threads. A
 * batch that would run alone — every instance idle and nothing queued behind it — runs there,
 * on all the cores the idle instances leave unused, instead of on one instance's share of them;
 * unless the session is resting after a run that another batch overlapped (`LONE_REST_MS`).
 */
export class SessionPoolClient {
  private readonly instances: Instance[] = [];
  private lone?: Instance;
  private nextId = 1;
  private closed = false;
  /** Another batch started while the current lone run was busy. */
  private loneOverlapped = false;
  /** Until when (ms, on `now`) a batch that is alone runs on an instance all the same. */
  private loneRestUntil = -Infinity;
  private readonly now: () => number;
  inputs: ValueInfo[] = [];
  outputs: ValueInfo[] = [];
  /**
   * The highest nice values among the sessions' pool threads and worker threads, as the workers
   * reported them at start (see `SessionOptionsData.poolThreadNice`).
   */
  readonly nice = { pool: 0, worker: 0 };
  /** Called when a replacement instance is ready, so queued work can use it. */
  onCapacity: () => void = () => undefined;

  private constructor(
    /** Instances the pool keeps (a dead one is replaced). */
    private readonly count: number,
    private readonly options: SessionOptionsData,
    private readonly loneBatchThreads: number,
    poolOptions: SessionPoolOptions,
  ) {
    this.now = poolOptions.now ?? (() => performance.now());
  }

  /**
   * Starts `count` workers (and the lone-batch worker when `loneBatchThreads` > 0) and resolves
   * once every session is created.
   */
  static async start(
    count: number,
    options: SessionOptionsData,
    loneBatchThreads = 0,
    poolOptions: SessionPoolOptions = {},
  ): Promise<SessionPoolClient> {
    const pool = new SessionPoolClient(count, options, loneBatchThreads, poolOptions);
    try {
      const spawns = Array.from({ length: count }, () => pool.spawn(false));
      if (loneBatchThreads > 0) spawns.push(pool.spawn(true));
      await Promise.all(spawns);
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

  /** Whether a lone-batch session is running (it may have died and be starting again). */
  get hasLoneSession(): boolean {
    return this.lone?.ready === true;
  }

  /** Whether the lone-batch session is resting after an overlapped run (see LONE_REST_MS). */
  get loneResting(): boolean {
    return this.now() < this.loneRestUntil;
  }

  /**
   * Runs one batch on an idle instance (the caller checks `idleCount` first), or on the
   * lone-batch session when the batch is `alone`, every instance is idle and the session is
   * not resting.
   */
  run(feeds: WireTensor[], outputs: string[], hints: RunHints = {}): Promise<RunResult> {
    if (this.closed) return Promise.reject(new Error('session pool is closed'));
    const lone = this.lone;
    const inst =
      hints.alone === true &&
      lone?.ready &&
      !lone.busy &&
      this.instances.every((i) => !i.busy) &&
      !this.loneResting
        ? lone
        : this.instances.find((i) => !i.busy);
    if (!inst) return Promise.reject(new Error('no idle session instance'));
    if (inst.lone) this.loneOverlapped = false;
    else if (lone?.busy) this.loneOverlapped = true;
    inst.busy = true;
    const id = this.nextId++;
    const msg: RunMessage = { kind: 'run', id, feeds, outputs };
    return new Promise<RunResult>((resolve, reject) => {
      inst.pending.set(id, {
        resolve: (r) => resolve(inst.lone ? { ...r, lone: true } : r),
        reject,
      });
      inst.worker.postMessage(
        msg,
        feeds.map((f) => f.buffer),
      );
    }).finally(() => {
      inst.busy = false;
      if (inst.lone && this.loneOverlapped) this.loneRestUntil = this.now() + LONE_REST_MS;
    });
  }

  /**
   * Ends every session: each worker releases its session and exits (see CloseMessage); one that
   * has not exited within CLOSE_GRACE_MS (stuck in a run) is terminated.
   */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.lone ? [...this.instances, this.lone] : this.instances;
    await Promise.all(all.map((i) => closeWorker(i.worker)));
  }

  private spawn(lone: boolean): Promise<void> {
    const entry = workerEntry();
    const workerData = lone
      ? loneSessionOptions(this.options, this.loneBatchThreads, this.count)
      : instanceSessionOptions(this.options, this.loneBatchThreads);
    const worker = new Worker(entry.file, { workerData, execArgv: entry.execArgv });
    const inst: Instance = { worker, busy: false, ready: false, lone, pending: new Map() };
    if (lone) this.lone = inst;
    else this.instances.push(inst);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        switch (reply.kind) {
          case 'ready':
            this.inputs = reply.inputs;
            this.outputs = reply.outputs;
            this.nice.pool = Math.max(this.nice.pool, reply.poolNice);
            this.nice.worker = Math.max(this.nice.worker, reply.threadNice);
            inst.ready = true;
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
        const err = new Error(`session worker exited with code ${code}`);
        reject(err);
        this.failAll(inst, err);
        if (inst.ready && !this.closed) this.replace(inst);
      });
    });
  }

  /** A worker that died while serving is replaced by a new session on the same model. */
  private replace(dead: Instance): void {
    if (dead.lone) this.lone = undefined;
    else this.instances.splice(this.instances.indexOf(dead), 1);
    this.spawn(dead.lone).then(
      () => this.onCapacity(),
      // The model file vanished or broke: the pool runs on with fewer instances.
      () => undefined,
    );
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
