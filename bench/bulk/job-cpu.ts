import { cpuSecondsOf, eventLoopSplit } from '../router/bench-measure';

/** CPU milliseconds per item of a bulk job, by where they were spent (Linux /proc). */
export interface JobCpu {
  /** The host's threads but its event loop: the ORT sessions' (most of it), V8's and libuv's. */
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

/** CPU seconds so far, by part (the same keys as JobCpu, without the total). */
type Snapshot = Omit<JobCpu, 'total'>;

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
    const host = eventLoopSplit(pids.host);
    const redis = redisSeconds(pids.redis);
    return {
      hostInference: host.others,
      hostEventLoop: host.main,
      workers: pids.workers.reduce((n, pid) => n + cpuSecondsOf(pid), 0),
      router: cpuSecondsOf(pids.router),
      ...(redis === undefined ? {} : { redis }),
    };
  };
  const before = take();
  const msPerItem = (from: number, to: number, items: number) =>
    Math.round(((to - from) / items) * 1e6) / 1e3;
  return {
    perItem(items) {
      const after = take();
      const part = (key: keyof Snapshot) => msPerItem(before[key] ?? 0, after[key] ?? 0, items);
      const redis =
        before.redis !== undefined && after.redis !== undefined ? part('redis') : undefined;
      const out: Snapshot = {
        hostInference: part('hostInference'),
        hostEventLoop: part('hostEventLoop'),
        workers: part('workers'),
        router: part('router'),
        ...(redis === undefined ? {} : { redis }),
      };
      const total = Object.values(out).reduce((a, b) => a + b, 0);
      return { ...out, total: Math.round(total * 1e3) / 1e3 };
    },
  };
}
