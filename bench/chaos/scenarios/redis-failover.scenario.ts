import {
  redisCli,
  RedisClusterHarness,
  RedisSentinelHarness,
  type RedisProcess,
} from '../../../test/support/redis-servers';
import { ADMIN_KEY, CHAOS_KEY, MODEL, sleep, waitFor, type Cluster } from '../cluster';
import { anyOf, closedLoop, grpcPredict, httpPredict, Recorder, type Outcome } from '../load';
import { verdict, type ChaosContext, type ChaosScenario, type Check } from '../scenario';
import {
  createRollout,
  jobView,
  listJobs,
  resultAudit,
  rolloutView,
  submitJobIdempotent,
  TERMINAL,
  timelineProblems,
  transitions,
  waitForJob,
  type JobView,
  type RolloutView,
} from '../workflows';

/**
 * Scenarios 10–12: the primary Redis node is SIGKILLed under load, on a Redis Cluster (3
 * primaries + 3 replicas, the primary owning a running bulk job's slot or the `{routes}` slot of
 * a running rollout) and on a Sentinel setup (primary, replica, 3 Sentinels). Online predictions
 * must not fail (they use each router's cached routing table); calls that need the store answer
 * 503 STORE_UNAVAILABLE until the replica is promoted and must work again within seconds of it;
 * a bulk job must keep every item exactly once and no acknowledged (202) submission may be lost
 * (submissions wait for one replica, JOBS_ACK_REPLICAS).
 */

const FINAL = ['completed', 'failed', 'cancelled'];

/** `host:port,…` of a topology's nodes or Sentinels. */
function hostPorts(list: readonly RedisProcess[]): string {
  return list.map((p) => `${p.address.host}:${p.address.port}`).join(',');
}

async function role(p: RedisProcess): Promise<string> {
  return (await redisCli(p.port, 'ROLE')).split('\n')[0]!.trim();
}

/** Until every replica's link to its primary is up (a replica still in first sync never fails over). */
async function clusterReplicasInSync(h: RedisClusterHarness): Promise<void> {
  await waitFor(
    async () => {
      for (const n of h.nodes) {
        const info = await redisCli(n.port, 'INFO', 'replication');
        if (info.includes('role:slave') && !info.includes('master_link_status:up'))
          return undefined;
      }
      return true;
    },
    'every cluster replica in sync',
    30_000,
    200,
  );
}

interface ClusterNode {
  id: string;
  port: number;
  master: boolean;
  masterId: string;
  slots: [number, number][];
}

/** `CLUSTER NODES` → nodes with their slot ranges (importing/migrating markers skipped). */
function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, addr, flags, masterId, , , , , ...slots] = line.trim().split(' ');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(addr!)?.[1] ?? 0),
        master: flags!.split(',').includes('master'),
        masterId: masterId!,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-');
            return [Number(a), Number(b ?? a)] as [number, number];
          }),
      };
    });
}

/** The primary serving `key`'s slot now, and its replica. */
async function slotOwner(
  h: RedisClusterHarness,
  key: string,
): Promise<{ slot: number; primary: RedisProcess; replica: RedisProcess }> {
  const probe = h.nodes.find((n) => n.running)!;
  const slot = Number(await redisCli(probe.port, 'CLUSTER', 'KEYSLOT', key));
  const nodes = parseClusterNodes(await redisCli(probe.port, 'CLUSTER', 'NODES'));
  const owner = nodes.find((n) => n.master && n.slots.some(([a, b]) => slot >= a && slot <= b));
  const replicaNode = owner && nodes.find((n) => !n.master && n.masterId === owner.id);
  const primary = h.nodes.find((n) => n.port === owner?.port);
  const replica = h.nodes.find((n) => n.port === replicaNode?.port);
  if (!primary || !replica) throw new Error(`no primary with a replica owns slot ${slot} (${key})`);
  return { slot, primary, replica };
}

/** ms (recorder time) when `replica` answers ROLE master. */
function promotion(replica: RedisProcess, rec: Recorder): Promise<number> {
  return waitFor(
    async () => ((await role(replica).catch(() => '')) === 'master' ? rec.now() : undefined),
    `the replica on ${replica.port} to be promoted`,
    60_000,
    50,
  );
}

/**
 * How long after the promotion a supervisor brings the killed node back (it rejoins as a
 * replica). Until then the promoted primary has no replica: writes that wait for one
 * (JOBS_ACK_REPLICAS=1: job submissions, chunk results) are acknowledged on it alone, since
 * the wait covers only the replicas connected now. Longer than the recovery goal, so the
 * recovery measured does not depend on the node coming back.
 */
const RESTART_AFTER_MS = 20_000;

const NO_REPLICA_NOTE = `the killed node rejoins as a replica ${RESTART_AFTER_MS / 1000} s after the promotion; until then writes that wait for a replica (job submissions, chunk results) are acknowledged on the promoted primary alone`;

/** Restarts the killed node; resolves (recorder ms) once it is a replica in sync again. */
async function restartAsReplica(
  node: RedisProcess,
  rec: Recorder,
  extraArgs: readonly string[] = [],
): Promise<{ restartedAt: number; inSyncAt: number }> {
  await node.restart(extraArgs);
  const restartedAt = rec.now();
  const inSyncAt = await waitFor(
    async () => {
      const info = await redisCli(node.port, 'INFO', 'replication').catch(() => '');
      return info.includes('role:slave') && info.includes('master_link_status:up')
        ? rec.now()
        : undefined;
    },
    `the restarted node :${node.port} to be a replica in sync`,
    60_000,
    50,
  );
  return { restartedAt, inSyncAt };
}

/** One call that needs the store, timed and classed. */
interface Poll {
  /** Sent at, and answered (or given up) at, ms of the recorder. */
  t: number;
  end: number;
  cls: string;
  ok: boolean;
}

async function classOf(res: Response): Promise<string> {
  let code = '';
  try {
    code = ((await res.json()) as { error?: { code?: string } }).error?.code ?? '';
  } catch {
    // not JSON
  }
  return `${res.status}${code ? ` ${code}` : ''}`;
}

/**
 * Polls `what` every 100 ms from the kill until it has answered 200 for `stableMs` in a row (or
 * `signal`), recording every answer: the recovery is the first 200 after the last failure.
 */
async function pollStore(
  rec: Recorder,
  url: string,
  key: string,
  signal: AbortSignal,
  stableMs = 3000,
): Promise<Poll[]> {
  const polls: Poll[] = [];
  let okSince: number | undefined;
  while (!signal.aborted) {
    const t = rec.now();
    let cls: string;
    try {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(5000),
      });
      cls = await classOf(res);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      cls = cause?.code ?? (err instanceof Error ? err.name : String(err));
    }
    const ok = cls === '200';
    polls.push({ t, end: rec.now(), cls, ok });
    okSince = ok ? (okSince ?? t) : undefined;
    if (okSince !== undefined && rec.now() - okSince >= stableMs) break;
    await sleep(100);
  }
  return polls;
}

/** When the first success after the last failure answered (the first one when none failed). */
function recoveredAt(polls: readonly Poll[]): number | undefined {
  let lastFail = -1;
  polls.forEach((p, i) => {
    if (!p.ok) lastFail = i;
  });
  return polls[lastFail + 1]?.end;
}

function classCounts(polls: readonly { cls: string; ok: boolean }[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const p of polls) if (!p.ok) c[p.cls] = (c[p.cls] ?? 0) + 1;
  return c;
}

/** Online load on one router: `http` HTTP callers and `grpc` gRPC callers, closed loop. */
function onlineLoad(
  ctx: ChaosContext,
  router: { urls: Record<string, string> },
  http: number,
  grpc: number,
): { rec: Recorder; stop(): Promise<void> } {
  const rec = new Recorder();
  const stopLoad = new AbortController();
  const signal = anyOf(stopLoad.signal, ctx.signal);
  const grpcSend = grpcPredict(() => [router.urls.grpc!], CHAOS_KEY);
  const loops = [
    closedLoop({
      send: httpPredict(() => [router.urls.http!], CHAOS_KEY),
      targets: 1,
      rec,
      signal,
      concurrency: http,
    }),
    grpc > 0
      ? closedLoop({ send: grpcSend, targets: 1, rec, signal, concurrency: grpc })
      : Promise.resolve(),
  ];
  return {
    rec,
    stop: async () => {
      stopLoad.abort();
      await Promise.all(loops);
      grpcSend.close();
    },
  };
}

function rps(rec: Recorder, list: readonly Outcome[]): number {
  return Math.round((list.length / Math.max(1, rec.now())) * 1000);
}

/**
 * Small jobs (`items` each, own Idempotency-Key, retried on 503) submitted one after the other
 * every `everyMs` until stopped: which were acknowledged, and what the retries met.
 */
function submitter(url: string, items: number, everyMs: number, signal: AbortSignal) {
  const acked: { key: string; jobId: string }[] = [];
  const unacked: string[] = [];
  const retried: Record<string, number> = {};
  const done = (async () => {
    for (let k = 0; !signal.aborted; k++) {
      const key = `small-${k}`;
      const s = await submitJobIdempotent(url, items, key, { deadlineMs: 30_000, firstIndex: k });
      for (const [cls, n] of Object.entries(s.retried)) retried[cls] = (retried[cls] ?? 0) + n;
      if (s.jobId) acked.push({ key, jobId: s.jobId });
      else unacked.push(key);
      await sleep(everyMs);
    }
  })();
  return { acked, unacked, retried, done };
}

/** A job view that never throws: the view, or the class of the failure. */
async function tryJobView(url: string, id: string): Promise<JobView | string> {
  try {
    return await jobView(url, id);
  } catch (err) {
    return err instanceof Error ? err.message.replace(/^job \S+: /, '') : String(err);
  }
}

/** Audits small acknowledged jobs: each must exist, complete and hold its items exactly once. */
async function auditAcked(
  url: string,
  acked: readonly { key: string; jobId: string }[],
  items: number,
): Promise<{ lost: number; notCompleted: number; itemProblems: number }> {
  let lost = 0;
  let notCompleted = 0;
  let itemProblems = 0;
  for (const a of acked) {
    const v = await waitForJob(
      () => url,
      a.jobId,
      (j) => FINAL.includes(j.state),
      `small job ${a.key}`,
      120_000,
    ).catch((err: Error) => err.message);
    if (typeof v === 'string') {
      if (v.includes('404')) lost++;
      else notCompleted++;
      continue;
    }
    if (v.state !== 'completed') {
      notCompleted++;
      continue;
    }
    const audit = await resultAudit(url, a.jobId, items);
    itemProblems += audit.missing + audit.duplicated + audit.wrong;
  }
  return { lost, notCompleted, itemProblems };
}

async function startClusterTopology(ctx: ChaosContext): Promise<RedisClusterHarness> {
  const harness = await RedisClusterHarness.start({ primaries: 3, replicas: 1 });
  await clusterReplicasInSync(harness);
  ctx.log(`Redis Cluster 3+3 up, replicas in sync: ${hostPorts(harness.nodes)}`);
  return harness;
}

const ROUTER_ENV = { ROUTER_SIGNAL_FLUSH_MS: '200', ROUTER_HEARTBEAT_INTERVAL_MS: '200' };

export const clusterBulkScenario: ChaosScenario = {
  id: 'cluster-primary-kill-bulk',
  title: 'Redis Cluster: SIGKILL the primary owning a running bulk job',
  budgetMs: { quick: 180_000, full: 360_000 },
  async run(ctx) {
    const items = ctx.quick ? 6000 : 20_000;
    const smallItems = 20;
    const harness = await startClusterTopology(ctx);
    try {
      const cluster: Cluster = ctx.cluster();
      cluster.useRedis({ REDIS_CLUSTER_NODES: hostPorts(harness.nodes) });
      await cluster.startHost();
      const router = await cluster.startRouter({ env: ROUTER_ENV });
      await cluster.startWorker();
      const url = router.urls.http!;
      const load = onlineLoad(ctx, router, 4, 0);
      const { rec } = load;
      const stopSmall = new AbortController();
      const small = submitter(url, smallItems, 1000, anyOf(stopSmall.signal, ctx.signal));

      const main = await submitJobIdempotent(url, items, 'bulk-main');
      if (!main.jobId) throw new Error(`bulk job not acknowledged: ${JSON.stringify(main)}`);
      const jobId = main.jobId;
      await waitForJob(
        () => url,
        jobId,
        (v) => v.processed >= items * 0.3,
        '30 % of the job',
      );
      const metaKey = `${cluster.prefix}:{job:${jobId}}:meta`;
      const { slot, primary, replica } = await slotOwner(harness, metaKey);
      const before = await jobView(url, jobId);
      const killAt = rec.now();
      await primary.kill();
      ctx.log(
        `SIGKILL primary :${primary.port} (slot ${slot} of ${metaKey}) at ${before.processed}/${items}`,
      );

      // Status reads of the job from the kill on: when it moves past what it showed before.
      const statusPolls: Poll[] = [];
      const progressAt = waitFor(
        async () => {
          const t = rec.now();
          const v = await tryJobView(url, jobId);
          statusPolls.push({
            t,
            end: rec.now(),
            cls: typeof v === 'string' ? v : '200',
            ok: typeof v !== 'string',
          });
          return typeof v !== 'string' && v.processed > before.processed ? rec.now() : undefined;
        },
        'the job to progress after the failover',
        120_000,
        100,
      );
      let progressed: number | undefined;
      void progressAt.then((t) => (progressed = t)).catch(() => undefined);
      const promotedAt = await promotion(replica, rec);
      ctx.log(`replica :${replica.port} promoted after ${promotedAt - killAt} ms`);
      await sleep(RESTART_AFTER_MS);
      const progressedWithoutReplica = progressed !== undefined;
      const { restartedAt, inSyncAt } = await restartAsReplica(primary, rec);
      ctx.log(
        `killed node restarted +${restartedAt - promotedAt} ms, replica in sync +${inSyncAt - promotedAt} ms after the promotion (job progressed before: ${progressedWithoutReplica})`,
      );
      const progressedAt = await progressAt;
      ctx.log(`job progresses again ${progressedAt - promotedAt} ms after the promotion`);

      const job = await waitForJob(
        () => url,
        jobId,
        (v) => FINAL.includes(v.state),
        'the job to finish',
        240_000,
      ).catch((err: Error) => ({ state: `not finished: ${err.message}`, processed: -1 }));
      const audit =
        job.state === 'completed'
          ? await resultAudit(url, jobId, items)
          : { lines: 0, missing: items, duplicated: 0, wrong: 0 };
      ctx.log(`job ${job.state}: ${JSON.stringify(audit)}`);
      stopSmall.abort();
      await small.done;
      await load.stop();

      const smallAudit = await auditAcked(url, small.acked, smallItems);
      // One job per acknowledged key: a retried submission must not have made a second job.
      const listed = (await listJobs(url)).filter((j) => j.total === smallItems).length;
      // A key never acknowledged (the client gave up on 503s) may still have its job: it was
      // stored and queued, only not confirmed on a replica. At most one job per key either way.
      const extraJobs = listed - small.acked.length - small.unacked.length;
      const failed = rec.outcomes.filter((o) => !o.ok);
      const dataLost = audit.missing + audit.duplicated + audit.wrong + smallAudit.itemProblems;
      const checks: Check[] = [
        {
          name: 'online predictions: 0 failed',
          ok: failed.length === 0,
          detail: JSON.stringify(rec.counts(failed)),
        },
        { name: 'bulk job completed', ok: job.state === 'completed', detail: job.state },
        {
          name: 'every item exactly once, in order',
          ok: audit.missing + audit.duplicated + audit.wrong === 0 && audit.lines === items,
          detail: JSON.stringify(audit),
        },
        {
          name: 'job progresses again < 10 s after the promotion',
          ok: progressedAt - promotedAt < 10_000,
          detail: `${progressedAt - promotedAt} ms`,
        },
        {
          name: 'no acknowledged submission lost (each small job found, completed, items exactly once)',
          ok:
            smallAudit.lost === 0 && smallAudit.notCompleted === 0 && smallAudit.itemProblems === 0,
          detail: `${small.acked.length} acknowledged: ${JSON.stringify(smallAudit)}`,
        },
        {
          name: 'one job per Idempotency-Key (retries made no second job)',
          ok: extraJobs <= 0 && listed >= small.acked.length,
          detail: `${listed} listed for ${small.acked.length} acknowledged and ${small.unacked.length} unacknowledged keys`,
        },
      ];
      return {
        id: this.id,
        title: this.title,
        load: `online closed loop c=4 HTTP (~${rps(rec, rec.outcomes)} rps) + bulk job of ${items} items + a ${smallItems}-item job submitted every second (Idempotency-Key, retried on 503)`,
        faults: `Redis Cluster 3+3: SIGKILL the primary owning the job's slot at ${Math.round((before.processed / items) * 100)} % of the job; the killed node restarted ${RESTART_AFTER_MS / 1000} s after its replica's promotion (rejoins as replica)`,
        requests: {
          sent: rec.outcomes.length,
          failed: failed.length,
          failedDetail: rec.counts(failed),
        },
        recoveryMs: progressedAt - promotedAt,
        dataLost,
        fixes: [],
        figures: {
          killedPrimaryPort: primary.port,
          jobSlot: slot,
          jobProcessedAtKill: `${before.processed}/${items}`,
          killToPromotionMs: promotedAt - killAt,
          promotionToJobProgressMs: progressedAt - promotedAt,
          jobProgressedBeforeNodeBack: progressedWithoutReplica ? 'yes' : 'no',
          promotionToNodeBackInSyncMs: inSyncAt - promotedAt,
          nodeBackToJobProgressMs: progressedAt - inSyncAt,
          jobStatusReadsFailed: JSON.stringify(classCounts(statusPolls)),
          jobItems: items,
          jobResultLines: audit.lines,
          missing: audit.missing,
          duplicated: audit.duplicated,
          wrongLines: audit.wrong,
          smallJobsAcknowledged: small.acked.length,
          smallJobsNotAcknowledged: small.unacked.length,
          smallJobsStoredUnacknowledged: listed - small.acked.length,
          smallJobsLost: smallAudit.lost,
          submissionRetries: JSON.stringify(small.retried),
        },
        ...verdict(checks, [NO_REPLICA_NOTE]),
      };
    } finally {
      await harness.stop();
    }
  },
};

export const clusterRolloutScenario: ChaosScenario = {
  id: 'cluster-primary-kill-rollout',
  title: 'Redis Cluster: SIGKILL the primary owning {routes} mid-rollout',
  budgetMs: { quick: 150_000, full: 300_000 },
  async run(ctx) {
    const hold = ctx.quick ? 3 : 4;
    const harness = await startClusterTopology(ctx);
    try {
      const cluster: Cluster = ctx.cluster();
      cluster.useRedis({ REDIS_CLUSTER_NODES: hostPorts(harness.nodes) });
      await cluster.startHost();
      const router = await cluster.startRouter({ env: ROUTER_ENV });
      const coordinator = await cluster.startCoordinator();
      const coordUrl = coordinator.urls.http!;
      const load = onlineLoad(ctx, router, 3, 1);
      const { rec } = load;

      const created = await createRollout(coordUrl, hold);
      const atStep = await waitFor(
        async () => {
          const v = await rolloutView(coordUrl, created.id);
          if (TERMINAL.includes(v.state)) throw new Error(`rollout ended ${v.state} early`);
          return v.state === 'canary' && v.step >= 2 ? v : undefined;
        },
        'canary step 2',
        120_000,
      );
      // The table, its epoch, the lease and every rollout record share the `{routes}` tag.
      const tableKey = `${cluster.prefix}:{routes}:table`;
      const { slot, primary, replica } = await slotOwner(harness, tableKey);
      const killAt = rec.now();
      await primary.kill();
      ctx.log(
        `SIGKILL primary :${primary.port} (slot ${slot}, {routes}) at canary step ${atStep.step}`,
      );
      const stopPolls = new AbortController();
      const polls = pollStore(
        rec,
        `${coordUrl}/v1/rollouts/${created.id}`,
        ADMIN_KEY,
        anyOf(stopPolls.signal, ctx.signal),
      );
      const promotedAt = await promotion(replica, rec);
      ctx.log(`replica :${replica.port} promoted after ${promotedAt - killAt} ms`);
      const adminPolls = await polls;
      const adminBackAt = recoveredAt(adminPolls) ?? rec.now();
      ctx.log(`rollout reads back ${adminBackAt - promotedAt} ms after the promotion`);

      let last = '';
      const done: RolloutView = await waitFor(
        async () => {
          const v = await rolloutView(coordUrl, created.id).catch(() => undefined);
          if (!v) return undefined;
          const now = `${v.state}:${v.step}`;
          if (now !== last) ctx.log(`rollout ${(last = now)}`);
          return TERMINAL.includes(v.state) ? v : undefined;
        },
        'the rollout to finish',
        ctx.quick ? 90_000 : 180_000,
        200,
      );
      const doneAt = rec.now();
      // After completion the routers must serve version 2 only (they follow the table's epoch).
      await sleep(3000);
      const tail = rec.between(doneAt + 1500).filter((o) => o.ok);
      const servedAfter = [...new Set(tail.map((o) => o.served))].join(',');
      await load.stop();

      const problems = timelineProblems(done);
      const stepsBack = done.timeline.filter(
        (e) => Date.parse(e.at) > rec.origin + killAt && e.to === 'canary' && e.step < atStep.step,
      );
      const failed = rec.outcomes.filter((o) => !o.ok);
      const checks: Check[] = [
        {
          name: 'online predictions (HTTP and gRPC): 0 failed',
          ok: failed.length === 0,
          detail: JSON.stringify(rec.counts(failed)),
        },
        {
          name: 'rollout completed, canary steps never went back',
          ok: problems.length === 0 && stepsBack.length === 0,
          detail: `${problems.join(', ')} ${transitions(done).join(' → ')}`,
        },
        {
          name: 'rollout reads answer again < 10 s after the promotion',
          ok: adminBackAt - promotedAt < 10_000,
          detail: `${adminBackAt - promotedAt} ms`,
        },
        {
          name: 'the router serves version 2 only once the rollout completed',
          ok: done.state !== 'completed' || servedAfter === `${MODEL}:2`,
          detail: servedAfter || 'no answer sampled',
        },
      ];
      return {
        id: this.id,
        title: this.title,
        load: `rollout 1→2 in 3 steps of ${hold} s; online closed loop c=3 HTTP + c=1 gRPC (~${rps(rec, rec.outcomes)} rps)`,
        faults: `Redis Cluster 3+3: SIGKILL the primary owning {routes} (table, lease, rollouts) at canary step ${atStep.step}`,
        requests: {
          sent: rec.outcomes.length,
          failed: failed.length,
          failedDetail: rec.counts(failed),
        },
        recoveryMs: adminBackAt - promotedAt,
        dataLost: 0,
        fixes: [],
        figures: {
          killedPrimaryPort: primary.port,
          routesSlot: slot,
          killToPromotionMs: promotedAt - killAt,
          promotionToRolloutReadMs: adminBackAt - promotedAt,
          rolloutReadsFailed: JSON.stringify(classCounts(adminPolls)),
          killToRolloutEndMs: doneAt - killAt,
          rolloutTimeline: transitions(done).join(' → '),
          servedAfterCompletion: servedAfter,
        },
        ...verdict(checks),
      };
    } finally {
      await harness.stop();
    }
  },
};

export const sentinelScenario: ChaosScenario = {
  id: 'sentinel-primary-kill',
  title: 'Redis Sentinel: SIGKILL the primary under load, bulk job submitted right after',
  budgetMs: { quick: 150_000, full: 300_000 },
  async run(ctx) {
    const items = ctx.quick ? 3000 : 10_000;
    const loadMs = ctx.quick ? 12_000 : 20_000;
    const harness = await RedisSentinelHarness.start();
    try {
      ctx.log(
        `Sentinel setup up: primary :${harness.primary.port}, replica :${harness.replica.port}`,
      );
      const cluster: Cluster = ctx.cluster();
      cluster.useRedis({
        REDIS_SENTINELS: hostPorts(harness.sentinels),
        REDIS_SENTINEL_MASTER: harness.masterName,
      });
      await cluster.startHost();
      const router = await cluster.startRouter({ env: ROUTER_ENV });
      await cluster.startWorker();
      const coordinator = await cluster.startCoordinator();
      const url = router.urls.http!;
      const load = onlineLoad(ctx, router, 3, 2);
      const { rec } = load;
      await sleep(loadMs / 2);

      const killAt = rec.now();
      await harness.primary.kill();
      ctx.log(`SIGKILL primary :${harness.primary.port}`);
      const stopPolls = new AbortController();
      const pollSignal = anyOf(stopPolls.signal, ctx.signal);
      const jobPolls = pollStore(rec, `${url}/v1/jobs`, CHAOS_KEY, pollSignal);
      const adminPolls = pollStore(
        rec,
        `${coordinator.urls.http!}/v1/rollouts`,
        ADMIN_KEY,
        pollSignal,
      );
      const submission = submitJobIdempotent(url, items, 'after-kill', { deadlineMs: 60_000 });
      let acked: number | undefined;
      void submission.then((s) => (acked = s.jobId ? rec.now() : undefined));
      const promotedAt = await promotion(harness.replica, rec);
      ctx.log(`replica :${harness.replica.port} promoted after ${promotedAt - killAt} ms`);
      await sleep(RESTART_AFTER_MS);
      const ackedWithoutReplica = acked !== undefined;
      const { restartedAt, inSyncAt } = await restartAsReplica(harness.primary, rec, [
        // As a Sentinel-managed node's start script does: ask the Sentinels for the primary.
        '--replicaof',
        '127.0.0.1',
        String(await harness.primaryPort()),
      ]);
      ctx.log(
        `old primary restarted +${restartedAt - promotedAt} ms, replica in sync +${inSyncAt - promotedAt} ms after the promotion (submission acknowledged before: ${ackedWithoutReplica})`,
      );
      const [jobs, admin, sub] = await Promise.all([jobPolls, adminPolls, submission]);
      const ackAt = killAt + sub.ms;
      const jobsBackAt = recoveredAt(jobs) ?? rec.now();
      const adminBackAt = recoveredAt(admin) ?? rec.now();
      ctx.log(
        `GET /v1/jobs back +${jobsBackAt - promotedAt} ms, GET /v1/rollouts +${adminBackAt - promotedAt} ms after the promotion; submission ${JSON.stringify(sub)}`,
      );
      await sleep(Math.max(0, killAt + loadMs / 2 - rec.now()));
      await load.stop();

      let job: { state: string } = { state: 'not acknowledged' };
      let audit = { lines: 0, missing: items, duplicated: 0, wrong: 0 };
      let sameKeyJobs = 0;
      if (sub.jobId) {
        job = await waitForJob(
          () => url,
          sub.jobId,
          (v) => FINAL.includes(v.state),
          'the job to finish',
          180_000,
        ).catch((err: Error) => ({ state: `not finished: ${err.message}` }));
        if (job.state === 'completed') audit = await resultAudit(url, sub.jobId, items);
        sameKeyJobs = (await listJobs(url)).filter((j) => j.total === items).length;
      }
      const failed = rec.outcomes.filter((o) => !o.ok);
      const recovery = Math.max(jobsBackAt, adminBackAt) - promotedAt;
      const checks: Check[] = [
        {
          name: 'online predictions (HTTP and gRPC): 0 failed',
          ok: failed.length === 0,
          detail: JSON.stringify(rec.counts(failed)),
        },
        {
          name: 'job and admin reads answer again < 10 s after the promotion',
          ok: recovery < 10_000,
          detail: `${recovery} ms`,
        },
        {
          name: 'bulk job submitted after the kill acknowledged and completed',
          ok: job.state === 'completed',
          detail: `${job.state}; ${sub.attempts} attempt(s), retried ${JSON.stringify(sub.retried)}`,
        },
        {
          name: 'its items exactly once, in order, and one job for its Idempotency-Key',
          ok:
            audit.missing + audit.duplicated + audit.wrong === 0 &&
            audit.lines === items &&
            sameKeyJobs === 1,
          detail: `${JSON.stringify(audit)}; ${sameKeyJobs} job(s) of ${items} items`,
        },
      ];
      return {
        id: this.id,
        title: this.title,
        load: `online closed loop c=3 HTTP + c=2 gRPC for ${loadMs / 1000} s (~${rps(rec, rec.outcomes)} rps); a ${items}-item bulk job submitted right after the kill (Idempotency-Key, retried on 503)`,
        faults: `Sentinel (primary, replica, 3 Sentinels, down-after 1 s): SIGKILL the primary at t=${Math.round(killAt / 1000)} s; restarted ${RESTART_AFTER_MS / 1000} s after the promotion (rejoins as replica)`,
        requests: {
          sent: rec.outcomes.length,
          failed: failed.length,
          failedDetail: rec.counts(failed),
        },
        recoveryMs: recovery,
        dataLost: audit.missing + audit.duplicated + audit.wrong + Math.max(0, sameKeyJobs - 1),
        fixes: [],
        figures: {
          killToPromotionMs: promotedAt - killAt,
          promotionToJobsListMs: jobsBackAt - promotedAt,
          promotionToAdminReadMs: adminBackAt - promotedAt,
          jobsListFailed: JSON.stringify(classCounts(jobs)),
          adminReadsFailed: JSON.stringify(classCounts(admin)),
          submissionAttempts: sub.attempts,
          submissionRetried: JSON.stringify(sub.retried),
          killToSubmissionAckMs: sub.ms,
          promotionToSubmissionAckMs: ackAt - promotedAt,
          submissionAckedBeforeNodeBack: ackedWithoutReplica ? 'yes' : 'no',
          promotionToNodeBackInSyncMs: inSyncAt - promotedAt,
          jobItems: items,
          jobResultLines: audit.lines,
          missing: audit.missing,
          duplicated: audit.duplicated,
          wrongLines: audit.wrong,
        },
        ...verdict(checks, [NO_REPLICA_NOTE]),
      };
    } finally {
      await harness.stop();
    }
  },
};
