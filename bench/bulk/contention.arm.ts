import { createHash } from 'node:crypto';
import { probeOnline, type ProbeResult } from './online-probe';
import { hostPort, post, startApp, waitReady, type Proc } from './bench-mesh';

export const ADMIN_KEY = 'bench-admin-key';
export const ONLINE_KEY = 'bench-online-key';
export const BULK_KEY = 'acme-demo-key';

export interface ContentionResult {
  distRoot: string;
  task: string;
  idle: ProbeResult;
  underBatches: ProbeResult;
  batchCalls: { completed: number; errors: number; meanMs: number; firstError?: string };
}

/** A tenant for the online probe whose rate limits never interfere with the measurement. */
export async function addOnlineTenant(routerUrl: string): Promise<void> {
  const res = await fetch(`${routerUrl}/v1/admin/tenants`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({
      name: 'bench-online',
      keySha256: [createHash('sha256').update(ONLINE_KEY).digest('hex')],
      allowedTasks: ['*'],
      rateLimit: { requestsPerSecond: 100000, burst: 100000 },
      maxInFlight: 512,
    }),
  });
  if (res.status !== 200)
    throw new Error(`adding the bench tenant: HTTP ${res.status} ${await res.text()}`);
  // The same version acme's intent route uses, so both tenants share one model version.
  const route = await fetch(`${routerUrl}/v1/admin/routes`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({
      tenant: 'bench-online',
      task: 'intent',
      model: 'intent-zh',
      versions: [{ version: 2, weight: 1 }],
    }),
  });
  if (route.status !== 200) throw new Error(`adding the bench route: HTTP ${route.status}`);
}

/**
 * Issue case: six concurrent 256-text predict:batch calls from one tenant while another
 * tenant sends single predicts to the same model. Probe latency idle, then under the batches.
 */
export async function runContention(opts: {
  distRoot: string;
  models: string;
  prefix: string;
  task: string;
  texts: readonly string[];
  seconds: number;
  log: (m: string) => void;
}): Promise<ContentionResult> {
  const procs: Proc[] = [];
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
      opts.distRoot,
      ['--model-control-mode=explicit', '--load-model=intent-zh'],
    );
    procs.push(host);
    const router = await startApp(
      'router',
      {
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        REDIS_KEY_PREFIX: opts.prefix,
        MODEL_REPOSITORY: opts.models,
        KSERVE_ENDPOINTS: hostPort(host.urls.grpc!),
        ADMIN_API_KEY: ADMIN_KEY,
        KSERVE_HEALTH_INTERVAL_MS: '500',
      },
      ['http'],
      opts.distRoot,
    );
    procs.push(router);
    const url = router.urls.http!;
    await waitReady(`${url}/healthz/ready`);
    await addOnlineTenant(url);
    await new Promise((r) => setTimeout(r, 1500));
    opts.log('contention: warm-up');
    await probeOnline(url, ONLINE_KEY, opts.task, opts.texts, 1, 3);
    const idle = await probeOnline(url, ONLINE_KEY, opts.task, opts.texts, 1, opts.seconds);
    opts.log(`contention: idle p50 ${idle.p50} ms p99 ${idle.p99} ms`);
    let stop = false;
    const calls = {
      completed: 0,
      errors: 0,
      totalMs: 0,
      firstError: undefined as string | undefined,
    };
    const batch = opts.texts.slice(0, 256);
    while (batch.length < 256) batch.push(...opts.texts.slice(0, 256 - batch.length));
    const loops = Array.from({ length: 6 }, async () => {
      while (!stop) {
        const t0 = performance.now();
        const r = await post(`${url}/v1/predict:batch`, BULK_KEY, {
          task: opts.task,
          texts: batch,
        });
        if (r.status === 200) {
          calls.completed += 1;
          calls.totalMs += performance.now() - t0;
        } else {
          calls.errors += 1;
          calls.firstError ??= `HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    const underBatches = await probeOnline(url, ONLINE_KEY, opts.task, opts.texts, 1, opts.seconds);
    stop = true;
    await Promise.all(loops);
    opts.log(`contention: under batches p50 ${underBatches.p50} ms p99 ${underBatches.p99} ms`);
    return {
      distRoot: opts.distRoot,
      task: opts.task,
      idle,
      underBatches,
      batchCalls: {
        completed: calls.completed,
        errors: calls.errors,
        meanMs: Math.round(calls.totalMs / Math.max(1, calls.completed)),
        ...(calls.firstError ? { firstError: calls.firstError } : {}),
      },
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}
