import { cpuSecondsOf, threadCpu } from '../router/bench-measure';

/** CPU milliseconds per item of a bulk job, by where they were spent (Linux /proc). */
export interface JobCpu {
  /** The host's inference threads: every thread but its event loop (ORT, worker threads). */
  hostInference: number;
  /** The host's event loop: gRPC, batching, tensors to and from the inference threads. */
  hostEventLoop: number;
  /** The batch workers: BullMQ, tokenizing, the gRPC calls, result writes. */
  workers: number;
  /** The router: status polls and the results stream of the job. */
  router: number;
  /** Redis, when it runs on this machine (its pid is readable); absent otherwise. */
  redis?: number;
  total: number;
}

export interface JobCpuPids {
  host: number;
  router: number;
  workers: number[];
  redis?: number;
}

type Snapshot = Record<keyof Omit<JobCpu, 'total'>, number>;

function hostSplit(pid: number): { inference: number; eventLoop: number } {
  const threads = threadCpu(pid);
  const eventLoop = threads.main ?? 0;
  const all = Object.values(threads).reduce((a, b) => a + b, 0);
  return { inference: all - eventLoop, eventLoop };
}

function redisSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return cpuSecondsOf(pid);
  } catch {
    return undefined; // another machine's Redis, or one we may not read
  }
}

/** Takes a snapshot now; `perItem(items)` then gives the CPU-ms per item since it. */
export function startJobCpu(pids: JobCpuPids): { perItem(items: number): JobCpu } {
  const take = (): Snapshot => {
    const host = hostSplit(pids.host);
    const redis = redisSeconds(pids.redis);
    return {
      hostInference: host.inference,
      hostEventLoop: host.eventLoop,
      workers: pids.workers.reduce((n, pid) => n + cpuSecondsOf(pid), 0),
      router: cpuSecondsOf(pids.router),
      ...(redis === undefined ? {} : { redis }),
    } as Snapshot;
  };
  const before = take();
  return {
    perItem(items) {
      const after = take();
      const out: Partial<JobCpu> = {};
      let total = 0;
      for (const key of Object.keys(after) as (keyof Snapshot)[]) {
        if (before[key] === undefined) continue;
        const ms = Math.round(((after[key] - before[key]) / items) * 1e6) / 1e3;
        out[key] = ms;
        total += ms;
      }
      return { ...(out as Omit<JobCpu, 'total'>), total: Math.round(total * 1e3) / 1e3 };
    },
  };
}
