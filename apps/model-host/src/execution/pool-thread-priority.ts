/**
 * The nice value of a session's intra-op pool threads. Only relative imports here: the session
 * worker imports this file, and it also runs under a plain transpiler in tests.
 */
import { getPriority, setPriority } from 'node:os';

/** This thread's nice value, read and written (on Linux, `os.get/setPriority()` act per thread). */
export interface ThreadNice {
  platform: NodeJS.Platform;
  get(): number;
  /** Throws when the process may not lower a nice value (no CAP_SYS_NICE, RLIMIT_NICE 0). */
  set(nice: number): void;
}

const thisThread: ThreadNice = {
  platform: process.platform,
  get: () => getPriority(),
  set: (nice) => setPriority(nice),
};

export interface PoolNiceOutcome<T> {
  value: T;
  /** The nice value the pool threads started with; 0 when they were left as they were. */
  poolNice: number;
  /** This thread's nice value afterwards. */
  threadNice: number;
}

/**
 * Runs `start`, which creates an ORT session and with it the session's intra-op pool threads, with
 * this thread's nice value raised to `nice`, then gives this thread its own value back.
 *
 * Why: ORT's pool threads spin between operators, and for a spell after a run. On a machine whose
 * event loops (the host's, a router's, a load balancer's) share the cores with the model, a
 * spinning thread of the same priority holds a core they are waiting for; at a lower priority the
 * scheduler hands it over as soon as they wake. A pool thread with real work still gets any core
 * nobody else wants. The worker thread itself, which runs each session.run() and its share of
 * every operator, keeps its priority.
 *
 * How: Linux keeps a nice value per thread and a new thread takes its creator's, so raising this
 * thread's value while ORT starts its threads is the one portable way to reach them (ORT does not
 * name them or hand out their ids). Only Linux acts this way; elsewhere `setPriority` would change
 * the whole process, so nothing is done. Giving this thread its value back lowers a nice value,
 * which needs CAP_SYS_NICE (or an RLIMIT_NICE that allows it): without it the thread keeps the
 * raised value too, as `threadNice` tells.
 */
export async function startWithPoolNice<T>(
  nice: number,
  poolThreads: number,
  start: () => Promise<T>,
  self: ThreadNice = thisThread,
): Promise<PoolNiceOutcome<T>> {
  const own = self.platform === 'linux' ? self.get() : 0;
  if (self.platform !== 'linux' || poolThreads < 1 || nice <= own) {
    return { value: await start(), poolNice: 0, threadNice: own };
  }
  self.set(nice);
  let value: T;
  try {
    value = await start();
  } finally {
    try {
      self.set(own);
    } catch {
      // Not allowed to lower it again: reported through threadNice.
    }
  }
  return { value, poolNice: nice, threadNice: self.get() };
}

/**
 * Whether a pool's worker threads stayed at their pool threads' lowered priority, which happens
 * where the process may not lower a nice value again (see `startWithPoolNice`).
 */
export function workersKeptPoolNice(nice: { pool: number; worker: number }): boolean {
  return nice.pool > 0 && nice.worker >= nice.pool;
}
