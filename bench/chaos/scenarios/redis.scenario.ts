import { ADMIN_KEY, CHAOS_KEY, sleep, waitFor, type Proc } from '../cluster';
import { closedLoop, httpPredict, Recorder, anyOf } from '../load';
import { verdict, type ChaosScenario, type Check } from '../scenario';
import {
  createRollout,
  jobView,
  resultAudit,
  rolloutView,
  submitJob,
  TERMINAL,
  timelineProblems,
  transitions,
  waitForJob,
} from '../workflows';

/**
 * Scenario 3: Redis (AOF on) restarted, then gone for 10 s, while online predictions, a bulk
 * job and a rollout run. Online predictions must keep working from each router's cached routing
 * table; what needs Redis is probed while it is down (an admin edit, a job submission, a job's
 * status) and reported as what degrades. Afterwards the job must finish with every item exactly
 * once and the rollout must complete without its steps going back.
 */

interface Probe {
  what: string;
  status: string;
}

async function probe(what: string, fn: () => Promise<Response>): Promise<Probe> {
  try {
    const res = await fn();
    let code = '';
    try {
      code = ((await res.json()) as { error?: { code?: string } }).error?.code ?? '';
    } catch {
      // not JSON
    }
    return { what, status: `${res.status}${code ? ` ${code}` : ''}` };
  } catch (err) {
    return { what, status: err instanceof Error ? err.name : String(err) };
  }
}

/** What needs Redis, tried once while it is down (each with a 15 s client deadline). */
function probeDegraded(router: string, jobId: string): Promise<Probe[]> {
  const t = AbortSignal.timeout(15_000);
  return Promise.all([
    probe('admin route edit (PUT /v1/admin/routes)', () =>
      fetch(`${router}/v1/admin/routes`, {
        method: 'PUT',
        signal: t,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({
          tenant: '*',
          task: 'sentiment',
          model: 'sentiment-en',
          versions: [{ version: 1, weight: 100 }],
        }),
      }),
    ),
    probe('job submission (POST /v1/jobs)', () =>
      fetch(`${router}/v1/jobs?task=question-type`, {
        method: 'POST',
        signal: t,
        headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${CHAOS_KEY}` },
        body: '{"text":"a"}\n',
      }),
    ),
    probe('job status (GET /v1/jobs/:id)', () =>
      fetch(`${router}/v1/jobs/${jobId}`, {
        signal: t,
        headers: { authorization: `Bearer ${CHAOS_KEY}` },
      }),
    ),
    probe('router readiness (GET /healthz/ready)', () =>
      fetch(`${router}/healthz/ready`, { signal: t }),
    ),
  ]);
}

export const redisScenario: ChaosScenario = {
  id: 'redis-restart',
  title: 'Redis restart (AOF) and Redis unavailable',
  budgetMs: { quick: 150_000, full: 300_000 },
  async run(ctx) {
    const items = ctx.quick ? 10_000 : 40_000;
    const downMs = 10_000;
    const hold = ctx.quick ? 3 : 5;
    const cluster = ctx.cluster();
    const redis = await cluster.startRedis({ aof: true });
    await cluster.startHost();
    const router = await cluster.startRouter({
      env: { ROUTER_SIGNAL_FLUSH_MS: '200', ROUTER_HEARTBEAT_INTERVAL_MS: '200' },
    });
    await cluster.startWorker();
    const coordinator: Proc = await cluster.startCoordinator();
    const url = router.urls.http!;

    const rec = new Recorder();
    const stopLoad = new AbortController();
    const signal = anyOf(stopLoad.signal, ctx.signal);
    const load = closedLoop({
      send: httpPredict(() => [url], CHAOS_KEY),
      targets: 1,
      rec,
      signal,
      concurrency: 4,
    });

    const jobId = await submitJob(url, items);
    const rollout = await createRollout(coordinator.urls.http!, hold);
    await waitFor(
      async () => {
        const v = await rolloutView(coordinator.urls.http!, rollout.id);
        return v.state === 'canary' ? v : undefined;
      },
      'the rollout to reach canary',
      60_000,
    );
    const before = await jobView(url, jobId);
    ctx.log(`job at ${before.processed}/${items}, rollout in canary: restarting Redis`);

    // Fault 1: restart (SIGTERM: Redis flushes its AOF and exits; same port and directory).
    const restartAt = rec.now();
    await redis.proc.stop('SIGTERM');
    await redis.proc.restart();
    const restartedAt = rec.now();
    await sleep(2000);

    // Fault 2: gone for 10 s (connections refused), then back from the AOF.
    const downAt = rec.now();
    const atDown = await jobView(url, jobId);
    await redis.proc.stop('SIGTERM');
    ctx.log(`Redis down (job at ${atDown.processed}/${items})`);
    const [probes] = await Promise.all([probeDegraded(url, jobId), sleep(downMs)]);
    const predictsWhileDown = rec.between(downAt, rec.now());
    await redis.proc.restart();
    const upAt = rec.now();
    ctx.log(`Redis back after ${upAt - downAt} ms; probes: ${JSON.stringify(probes)}`);

    // Writes work again: an admin edit through the router succeeds.
    const editBack = await waitFor(
      async () => {
        const p = await probeDegraded(url, jobId);
        return p[0]!.status.startsWith('200') ? rec.now() : undefined;
      },
      'admin edits to work again',
      60_000,
      250,
    ).catch(() => undefined);

    const job = await waitForJob(
      () => url,
      jobId,
      (v) => ['completed', 'failed', 'cancelled'].includes(v.state),
      'the job to finish',
    ).catch((err: Error) => ({
      state: `not finished: ${err.message}`,
      processed: -1,
      total: items,
    }));
    const audit =
      job.state === 'completed'
        ? await resultAudit(url, jobId, items)
        : { lines: 0, missing: items, duplicated: 0, wrong: 0 };
    const done = await waitFor(
      async () => {
        const v = await rolloutView(coordinator.urls.http!, rollout.id);
        return TERMINAL.includes(v.state) ? v : undefined;
      },
      'the rollout to finish',
      180_000,
      200,
    );
    stopLoad.abort();
    await load;

    const failed = rec.outcomes.filter((o) => !o.ok);
    const failedWhileDown = predictsWhileDown.filter((o) => !o.ok);
    const problems = timelineProblems(done);
    const dataLost = audit.missing + audit.duplicated + audit.wrong;
    const degraded = probes.map((p) => `${p.what} → ${p.status}`).join('; ');
    const checks: Check[] = [
      {
        name: 'online predictions kept working through both faults (0 failed)',
        ok: failed.length === 0 && predictsWhileDown.some((o) => o.ok),
        detail: JSON.stringify(rec.counts(failed)),
      },
      {
        name: 'Redis-backed calls fail fast with a clean 503 while Redis is down (no hang, no 500)',
        ok: probes
          .filter((p) => !p.what.includes('readiness'))
          .every((p) => p.status.startsWith('503')),
        detail: degraded,
      },
      {
        name: 'the router stays ready while Redis is down (a load balancer keeps it)',
        ok: probes.some((p) => p.what.includes('readiness') && p.status.startsWith('200')),
        detail: degraded,
      },
      { name: 'admin edits work again after Redis is back', ok: editBack !== undefined },
      { name: 'bulk job completed', ok: job.state === 'completed', detail: job.state },
      {
        name: 'every item exactly once',
        ok: dataLost === 0 && audit.lines === items,
        detail: JSON.stringify(audit),
      },
      {
        name: 'rollout completed, steps never went back',
        ok: problems.length === 0,
        detail: `${problems.join(', ')} ${transitions(done).join(' → ')}`,
      },
    ];
    return {
      id: this.id,
      title: this.title,
      load: `online closed loop c=4 HTTP (~${Math.round((rec.outcomes.length / rec.now()) * 1000)} rps) + bulk job of ${items} items + rollout 1→2 (3 steps of ${hold} s)`,
      faults: `Redis (AOF everysec) SIGTERM + restart at once; then SIGTERM, ${downMs / 1000} s down, restart`,
      requests: {
        sent: rec.outcomes.length,
        failed: failed.length,
        failedDetail: rec.counts(failed),
      },
      ...(editBack !== undefined ? { recoveryMs: editBack - upAt } : {}),
      dataLost,
      fixes: [
        'router: Redis commands time out after 3 s (were queued for the whole outage), so admin edits and job calls answer 503 STORE_UNAVAILABLE with Retry-After instead of hanging',
        'router: readiness stays 200 through a Redis outage once the routing table is cached (it failed, which would have emptied the router Service while predictions still worked)',
      ],
      figures: {
        redisRestartMs: restartedAt - restartAt,
        redisDownMs: upAt - downAt,
        jobProcessedWhenRedisWentDown: `${atDown.processed}/${items}`,
        predictsWhileDown: predictsWhileDown.length,
        predictsFailedWhileDown: failedWhileDown.length,
        whileDown: degraded,
        adminEditsBackAfterMs: editBack !== undefined ? editBack - upAt : 'never',
        jobItems: items,
        jobResultLines: audit.lines,
        missing: audit.missing,
        duplicated: audit.duplicated,
        rolloutTimeline: transitions(done).join(' → '),
      },
      ...verdict(checks, [
        `while Redis is down: ${degraded}; rate limits fall back to each router's in-memory insurance limiter; predictions use the cached routing table`,
      ]),
    };
  },
};
