import { CHAOS_KEY, waitFor } from '../cluster';
import { closedLoop, httpPredict, Recorder, anyOf } from '../load';
import { verdict, type ChaosScenario, type Check } from '../scenario';
import {
  createRollout,
  leaderOf,
  resultAudit,
  rolloutView,
  submitJob,
  TERMINAL,
  timelineProblems,
  transitions,
  waitForJob,
} from '../workflows';

/**
 * Scenario 4: SIGKILL a batch worker in the middle of a bulk job (two workers) and the leading
 * coordinator in the middle of a rollout (two coordinators), under online load. The job must
 * finish with every item exactly once; the rollout must complete with its canary steps never
 * going back (the stand-by takes the lease and continues from the stored step).
 */

export const workerCoordinatorScenario: ChaosScenario = {
  id: 'worker-coordinator-kill',
  title: 'Worker SIGKILL mid-bulk, coordinator SIGKILL mid-rollout',
  budgetMs: { quick: 150_000, full: 300_000 },
  async run(ctx) {
    const items = ctx.quick ? 3000 : 20_000;
    const hold = ctx.quick ? 2 : 4;
    const cluster = ctx.cluster();
    await cluster.startRedis();
    await cluster.startHost();
    const router = await cluster.startRouter({
      env: { ROUTER_SIGNAL_FLUSH_MS: '200', ROUTER_HEARTBEAT_INTERVAL_MS: '200' },
    });
    const workers = [
      await cluster.startWorker({}, 'worker-1'),
      await cluster.startWorker({}, 'worker-2'),
    ];
    const coordinators = [
      await cluster.startCoordinator({}, 'coord-a'),
      await cluster.startCoordinator({}, 'coord-b'),
    ];
    const url = router.urls.http!;
    const rec = new Recorder();
    const stopLoad = new AbortController();
    const signal = anyOf(stopLoad.signal, ctx.signal);
    const load = closedLoop({
      send: httpPredict(() => [url], CHAOS_KEY),
      targets: 1,
      rec,
      signal,
      concurrency: 2,
    });

    // Worker kill: once a fifth of the job is done, SIGKILL the worker that is busiest.
    const jobId = await submitJob(url, items);
    await waitForJob(
      () => url,
      jobId,
      (v) => v.processed >= items / 5,
      'a fifth of the job',
    );
    const victim = workers[0]!;
    const killWorkerAt = Date.now();
    victim.signal('SIGKILL');
    await victim.exited();
    ctx.log(`SIGKILL ${victim.name} with the job ${jobId} in progress`);
    const job = await waitForJob(
      () => url,
      jobId,
      (v) => ['completed', 'failed', 'cancelled'].includes(v.state),
      'the job to finish',
    );
    const jobRecoveryMs = Date.now() - killWorkerAt;
    const audit = await resultAudit(url, jobId, items);
    ctx.log(`job ${job.state}: ${JSON.stringify(audit)}`);
    await victim.restart();

    // Coordinator kill: once the rollout is at canary step 2, SIGKILL the leader.
    const leader = await waitFor(() => leaderOf(coordinators), 'a coordinator to lead', 30_000);
    const coordUrl = () => coordinators.find((c) => c.running())!.urls.http!;
    const created = await createRollout(leader.urls.http!, hold);
    const atStep = await waitFor(
      async () => {
        const v = await rolloutView(coordUrl(), created.id);
        if (TERMINAL.includes(v.state)) throw new Error(`rollout ended ${v.state} early`);
        return v.state === 'canary' && v.step >= 2 ? v : undefined;
      },
      'canary step 2',
      120_000,
    );
    const killLeaderAt = Date.now();
    leader.signal('SIGKILL');
    await leader.exited();
    ctx.log(`SIGKILL ${leader.name} (leader) at canary step ${atStep.step}`);
    const standby = coordinators.find((c) => c !== leader)!;
    const takeover = await waitFor(
      async () => ((await leaderOf([standby])) ? Date.now() : undefined),
      'the stand-by to take the lease',
      60_000,
      100,
    );
    ctx.log(`${standby.name} leads after ${takeover - killLeaderAt} ms`);
    let last = '';
    const done = await waitFor(
      async () => {
        const v = await rolloutView(standby.urls.http!, created.id);
        const now = `${v.state}:${v.step}`;
        if (now !== last) ctx.log(`rollout ${(last = now)}`);
        return TERMINAL.includes(v.state) ? v : undefined;
      },
      'the rollout to finish',
      ctx.quick ? 60_000 : 180_000,
      200,
    ).catch(async (err: Error) => {
      const v = await rolloutView(standby.urls.http!, created.id);
      throw new Error(`${err.message}; timeline: ${JSON.stringify(v.timeline.slice(-4))}`);
    });
    stopLoad.abort();
    await load;

    const problems = timelineProblems(done);
    const stepsAfterKill = done.timeline.filter(
      (e) => Date.parse(e.at) > killLeaderAt && e.to === 'canary' && e.step < atStep.step,
    );
    const failed = rec.outcomes.filter((o) => !o.ok);
    const dataLost = audit.missing + audit.duplicated + audit.wrong;
    const checks: Check[] = [
      { name: 'bulk job completed', ok: job.state === 'completed', detail: job.state },
      {
        name: 'every item exactly once (no missing, duplicated or wrong line)',
        ok: dataLost === 0 && audit.lines === items,
        detail: JSON.stringify(audit),
      },
      {
        name: 'rollout completed, canary steps never went back',
        ok: problems.length === 0 && stepsAfterKill.length === 0,
        detail: `${problems.join(', ')} ${transitions(done).join(' → ')}`,
      },
      {
        name: 'online predictions: 0 failed',
        ok: failed.length === 0,
        detail: JSON.stringify(rec.counts(failed)),
      },
    ];
    return {
      id: this.id,
      title: this.title,
      load: `bulk job of ${items} items on 2 workers; rollout 1→2 in 3 steps of ${hold} s; online closed loop c=2 HTTP`,
      faults: `SIGKILL 1 of 2 workers at 20 % of the job; SIGKILL the leading coordinator (of 2) at canary step ${atStep.step}`,
      requests: {
        sent: rec.outcomes.length,
        failed: failed.length,
        failedDetail: rec.counts(failed),
      },
      recoveryMs: takeover - killLeaderAt,
      dataLost,
      fixes: [],
      figures: {
        jobItems: items,
        jobResultLines: audit.lines,
        missing: audit.missing,
        duplicated: audit.duplicated,
        wrongLines: audit.wrong,
        workerKillToJobDoneMs: jobRecoveryMs,
        leaderKillToTakeoverMs: takeover - killLeaderAt,
        rolloutTimeline: transitions(done).join(' → '),
      },
      ...verdict(checks),
    };
  },
};
