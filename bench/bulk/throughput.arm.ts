import { createClient } from './redis-memory';
import { probeOnline, type ProbeResult } from './online-probe';
import { addOnlineTenant, ADMIN_KEY, BULK_KEY, ONLINE_KEY } from './contention.arm';
import { hostPort, startApp, waitReady, type Proc } from './bench-mesh';
import { startJobCpu, type JobCpu } from './job-cpu';

export interface ThroughputResult {
  workers: number;
  items: number;
  seconds: number;
  itemsPerSecond: number;
  /** From the upload's first byte to the 202 (items parsed, chunked and queued). */
  acceptedMs: number;
  timeToFirstResultMs: number;
  redisPeakBytesPer100k: number;
  /** CPU-ms per item from the submit to `completed`, by process (Linux). */
  cpuMsPerItem: JobCpu;
  online?: { idle: ProbeResult; withBulk: ProbeResult };
}

/**
 * One job of `items` short texts through router → Redis/BullMQ → `workers` batch workers →
 * host; items/s from 202 to `completed`, time until the first result line can be read, and
 * Redis memory growth at its peak. Optionally probes single-predict latency (c=4) idle and
 * while the job runs.
 */
export async function runThroughput(opts: {
  models: string;
  prefix: string;
  workers: number;
  texts: readonly string[];
  items: number;
  probeSeconds?: number;
  log: (m: string) => void;
}): Promise<ThroughputResult> {
  const procs: Proc[] = [];
  const redis = createClient();
  try {
    const host = await startApp(
      'model-host',
      {
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
        MODEL_REPOSITORY: opts.models,
      },
      ['http', 'grpc'],
      undefined,
      ['--model-control-mode=explicit', '--load-model=intent-zh'],
    );
    procs.push(host);
    const common = {
      REDIS_KEY_PREFIX: opts.prefix,
      MODEL_REPOSITORY: opts.models,
      KSERVE_ENDPOINTS: hostPort(host.urls.grpc!),
    };
    const router = await startApp(
      'router',
      {
        ...common,
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        ADMIN_API_KEY: ADMIN_KEY,
        KSERVE_HEALTH_INTERVAL_MS: '500',
      },
      ['http'],
    );
    procs.push(router);
    const workerPids: number[] = [];
    for (let i = 0; i < opts.workers; i++) {
      const worker = await startApp(
        'batch-worker',
        { ...common, WORKER_PORT: '0', KSERVE_HEALTH_INTERVAL_MS: '500' },
        ['http'],
      );
      procs.push(worker);
      workerPids.push(worker.pid);
    }
    const url = router.urls.http!;
    await waitReady(`${url}/healthz/ready`);
    await addOnlineTenant(url);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = opts.probeSeconds
      ? await probeOnline(url, ONLINE_KEY, 'intent', opts.texts, 4, opts.probeSeconds)
      : undefined;
    const body = Array.from({ length: opts.items }, (_, i) =>
      JSON.stringify({ text: opts.texts[i % opts.texts.length] }),
    ).join('\n');
    const before = await redis.usedMemory();
    let peak = before;
    const sampler = setInterval(
      () => void redis.usedMemory().then((m) => (peak = Math.max(peak, m))),
      250,
    );
    const redisPid = await redis.localPid();
    const cpu = startJobCpu({
      host: host.pid,
      router: router.pid,
      workers: workerPids,
      ...(redisPid === undefined ? {} : { redis: redisPid }),
    });
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/jobs?task=intent`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${BULK_KEY}` },
      body,
    });
    const job = (await res.json()) as { jobId: string; total: number };
    const acceptedMs = performance.now() - t0;
    if (res.status !== 202) throw new Error(`submit: HTTP ${res.status} ${JSON.stringify(job)}`);
    const firstResult = readFirstResult(url, job.jobId).then(() => performance.now() - t0);
    const withBulk = opts.probeSeconds
      ? probeOnline(url, ONLINE_KEY, 'intent', opts.texts, 4, opts.probeSeconds)
      : undefined;
    let state = '';
    while (state !== 'completed') {
      await new Promise((r) => setTimeout(r, 200));
      const s = (await (
        await fetch(`${url}/v1/jobs/${job.jobId}`, {
          headers: { authorization: `Bearer ${BULK_KEY}` },
        })
      ).json()) as { state: string };
      state = s.state;
      if (['failed', 'cancelled'].includes(state)) throw new Error(`job ended ${state}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpuMsPerItem = cpu.perItem(opts.items);
    clearInterval(sampler);
    peak = Math.max(peak, await redis.usedMemory());
    const online = withBulk && idle ? { idle, withBulk: await withBulk } : undefined;
    const result: ThroughputResult = {
      workers: opts.workers,
      items: opts.items,
      seconds: Math.round(seconds * 10) / 10,
      itemsPerSecond: Math.round(opts.items / seconds),
      acceptedMs: Math.round(acceptedMs),
      timeToFirstResultMs: Math.round(await firstResult),
      redisPeakBytesPer100k: Math.round(((peak - before) / opts.items) * 100_000),
      cpuMsPerItem,
      ...(online ? { online } : {}),
    };
    opts.log(`throughput: ${JSON.stringify(result)}`);
    return result;
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await redis.close();
  }
}

async function readFirstResult(url: string, jobId: string): Promise<void> {
  const res = await fetch(`${url}/v1/jobs/${jobId}/results`, {
    headers: { authorization: `Bearer ${BULK_KEY}` },
  });
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
}
