/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- the API's JSON answers are read untyped */
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { JobRepository, type JobRecord } from '@mesh/jobs';
import { createChannelCredentials, KServeClient } from '@mesh/kserve';
import { PlacementAudit, PlacementKeys, PlacementLedgerReader } from '@mesh/placement';
import { RouteEditValidator, RoutingTableRepository } from '@mesh/routing';
import {
  RedisTrafficSignalSource,
  RouterHeartbeatRepository,
  TrafficSignalRecorder,
} from '@mesh/signals';
import { AdminAuthenticator } from '@mesh/tenancy';
import { createHttpApp, createLogger } from '@mesh/telemetry';
import { CoordinatorErrorFilter } from '../http/coordinator-error.hook';
import { RolloutService } from '../rollout/rollout.service';
import { jobRecord } from '../../../../libs/jobs/src/testing/job-fixtures';
import { FakeClock } from '../testing/fake-mesh';
import { rolloutServiceRig } from '../testing/rollout-service-rig';
import { DashboardModule } from './dashboard.module';
import { uniquePrefix } from '../../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = uniquePrefix(__filename);
const REPO = join(__dirname, '..', '..', '..', '..', 'model_repository');
const ADMIN = 'dashboard-int-admin-key';
/** A whole minute (whole 5 s buckets) near the real time: job listings trim by real time. */
const NOW = Math.floor(Date.now() / 60_000) * 60_000;

let redis: RedisClient;
let app: NestFastifyApplication;
let base: string;
let table: RoutingTableRepository;
let jobs: JobRepository;
let rollouts: RolloutService;
let backend: KServeClient;
const clock = new FakeClock(NOW);

function call(method: string, path: string, body?: unknown, key: string | null = ADMIN) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function json(method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(method, path, body);
  return { status: res.status, body: await res.json() };
}

function job(id: string, tenant: string, state: JobRecord['state']): JobRecord {
  return jobRecord(id, {
    tenant,
    task: 'question-type',
    model: 'question-type-zh',
    version: 1,
    pipeline: 'text-classification',
    state,
    total: 4,
    createdAt: NOW - 60_000,
    ...(state === 'queued' ? {} : { startedAt: NOW - 50_000 }),
  });
}

beforeAll(async () => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'test-dashboard' });
  const rig = await rolloutServiceRig(redis, PREFIX, REPO, clock);
  ({ table, service: rollouts } = rig);
  const rolloutRepository = rig.repository;
  jobs = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
  // Nothing listens on port 1: the Models view must say the backend is unreachable.
  backend = new KServeClient({
    address: '127.0.0.1:1',
    credentials: createChannelCredentials(),
    maxMessageBytes: 4 * 1024 * 1024,
  });
  const logger = createLogger('coordinator', 'silent');
  app = await createHttpApp(
    DashboardModule.register({
      auth: new AdminAuthenticator(ADMIN),
      clock,
      table,
      heartbeats: new RouterHeartbeatRepository(redis, { keyPrefix: PREFIX }),
      signals: new RedisTrafficSignalSource(redis, { keyPrefix: PREFIX }),
      routeValidator: new RouteEditValidator(REPO),
      rollouts,
      rolloutRepository,
      jobs,
      backends: [backend],
      backendDeadlineMs: 500,
      placement: {
        ledgers: () => new PlacementLedgerReader(redis, PREFIX).all(),
        recent: (n) => new PlacementAudit(redis, PREFIX).recent(n),
      },
      uiDir: join(__dirname, 'no-such-dir'),
      everyMs: { routes: 50 },
    }),
    logger,
  );
  app.useGlobalFilters(new CoordinatorErrorFilter(logger));
  await app.listen(0, '127.0.0.1');
  base = await app.getUrl();
});

afterAll(async () => {
  await app?.close();
  backend?.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('dashboard API (real Redis, real model repository)', () => {
  it('answers 401 without the admin key and 403 with another, on reads, streams and writes', async () => {
    for (const [method, path] of [
      ['GET', '/v1/dashboard/routes'],
      ['GET', '/v1/dashboard/jobs/stream'],
      ['PUT', '/v1/dashboard/routes/*/intent/weights'],
      ['POST', '/v1/dashboard/jobs/j1/cancel'],
    ] as const) {
      expect([path, (await call(method, path, undefined, null)).status]).toEqual([path, 401]);
      expect([path, (await call(method, path, undefined, 'wrong')).status]).toEqual([path, 403]);
    }
    // An unknown view is a bad parameter, answered with the views there are.
    const unknown = await call('GET', '/v1/dashboard/nonsense');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      "view: must be one of routes, traffic, rollouts, jobs, models (got 'nonsense')",
    );
  });

  it('shows each route with routability per version from the live heartbeats', async () => {
    const epoch = await table.currentEpoch();
    await new RouterHeartbeatRepository(redis, { keyPrefix: PREFIX }).publish(
      {
        routerId: 'router-a',
        epoch,
        at: NOW,
        routable: [{ model: 'question-type-zh', version: 1 }],
        unroutable: [{ model: 'intent-zh', version: 1, reason: 'backend has not loaded it' }],
        inFlight: [{ model: 'question-type-zh', version: 1, count: 3 }],
      },
      60,
    );
    const { status, body } = await json('GET', '/v1/dashboard/routes');
    expect(status).toBe(200);
    expect(body.epoch).toBe(epoch);
    expect(body.routers).toEqual([{ routerId: 'router-a', epoch, at: NOW, inFlight: 3 }]);
    const byTask = Object.fromEntries(body.routes.map((r: any) => [r.task, r.versions]));
    expect(byTask['question-type']).toEqual([
      { version: 1, weight: 100, routable: true, blocking: [] },
    ]);
    expect(byTask.intent).toEqual([
      {
        version: 1,
        weight: 100,
        routable: false,
        blocking: [{ routerId: 'router-a', reason: 'backend has not loaded it' }],
      },
    ]);
    expect(body.audit[0]).toMatchObject({ action: 'seed', who: 'test' });
  });

  it('edits weights through the epoch compare-and-set, audited as the dashboard', async () => {
    const epoch = await table.currentEpoch();
    const edit = {
      expectedEpoch: epoch,
      versions: [
        { version: 1, weight: 70 },
        { version: 2, weight: 30 },
      ],
    };
    const ok = await json('PUT', '/v1/dashboard/routes/*/question-type/weights', edit);
    expect(ok).toEqual({
      status: 200,
      body: {
        epoch: epoch + 1,
        route: {
          tenant: '*',
          task: 'question-type',
          model: 'question-type-zh',
          versions: edit.versions,
        },
      },
    });
    const stored = await table.load();
    expect(stored?.routes.find((r) => r.task === 'question-type')?.versions).toEqual(edit.versions);
    const [entry] = await table.auditLog(1);
    expect(entry).toMatchObject({
      epoch: epoch + 1,
      who: 'dashboard',
      action: 'route.upsert',
      target: '*/question-type',
    });
    const view = await json('GET', '/v1/dashboard/routes');
    const row = view.body.routes.find((r: any) => r.task === 'question-type');
    expect(row.audit[0]).toMatchObject({ who: 'dashboard', epoch: epoch + 1 });

    // The same body again was read at an older epoch: refused, table unchanged.
    const stale = await json('PUT', '/v1/dashboard/routes/*/question-type/weights', edit);
    expect([stale.status, stale.body.error.code]).toEqual([409, 'EPOCH_CONFLICT']);
    expect(await table.currentEpoch()).toBe(epoch + 1);
  });

  it('refuses bad weight edits with the status and field that is wrong', async () => {
    const epoch = await table.currentEpoch();
    const cases: [string, unknown, number, string, string][] = [
      [
        '*/intent',
        { expectedEpoch: epoch, versions: [{ version: 9, weight: 100 }] },
        422,
        'UNKNOWN_VERSION',
        'versions[0].version',
      ],
      [
        '*/intent',
        { expectedEpoch: epoch, versions: [{ version: 1, weight: 140 }] },
        400,
        'INVALID_ROUTING_CONFIG',
        'versions[0].weight',
      ],
      [
        '*/intent',
        { versions: [{ version: 1, weight: 100 }] },
        400,
        'INVALID_ROUTING_CONFIG',
        'expectedEpoch',
      ],
      [
        '*/nope',
        { expectedEpoch: epoch, versions: [{ version: 1, weight: 100 }] },
        404,
        'NOT_FOUND',
        '*/nope',
      ],
    ];
    for (const [route, body, status, code, text] of cases) {
      const res = await json('PUT', `/v1/dashboard/routes/${route}/weights`, body);
      expect([res.status, res.body.error.code, res.body.error.message.includes(text)]).toEqual([
        status,
        code,
        true,
      ]);
    }
    expect(await table.currentEpoch()).toBe(epoch);
  });

  it('lists rollouts and refuses a manual edit of a route a rollout is driving', async () => {
    const created = await rollouts.create({
      task: 'intent',
      model: 'intent-zh',
      toVersion: 2,
      steps: [{ weight: 100, holdSeconds: 5 }],
    });
    const { body } = await json('GET', '/v1/dashboard/rollouts');
    expect(body.rollouts.map((r: any) => [r.id, r.state])).toEqual([[created.id, 'pending']]);
    const routes = await json('GET', '/v1/dashboard/routes');
    expect(routes.body.routes.find((r: any) => r.task === 'intent').activeRollout).toBe(created.id);
    const edit = await json('PUT', '/v1/dashboard/routes/*/intent/weights', {
      expectedEpoch: await table.currentEpoch(),
      versions: [{ version: 1, weight: 100 }],
    });
    expect([edit.status, edit.body.error.code]).toEqual([409, 'ROLLOUT_CONFLICT']);
  });

  it('summarizes traffic per task and version from the signals the routers write', async () => {
    const recorder = new TrafficSignalRecorder(redis, {
      keyPrefix: PREFIX,
      now: () => clock.now(),
    });
    clock.ms = NOW - 120_000;
    for (let i = 0; i < 30; i++) {
      recorder.record({
        task: 'question-type',
        model: 'question-type-zh',
        version: 1,
        outcome: i < 3 ? 'INTERNAL' : 'ok',
        latencyMs: 8,
      });
    }
    recorder.record({
      task: 'question-type',
      model: 'question-type-zh',
      version: 2,
      outcome: 'ok',
      latencyMs: 40,
    });
    await recorder.flush();
    clock.ms = NOW;
    const { body } = await json('GET', '/v1/dashboard/traffic');
    expect(body.toMs).toBe(NOW);
    expect(body.fromMs).toBe(NOW - 15 * 60_000);
    expect(body.times).toHaveLength(30);
    const row = (v: number) =>
      body.rows.find((r: any) => r.task === 'question-type' && r.version === v);
    expect(row(1).summary).toMatchObject({ requests: 30, errors: 3, errorRate: 0.1 });
    expect(row(1).summary.p50Ms).toBeGreaterThan(0);
    expect(row(2).summary).toMatchObject({ requests: 1, errors: 0 });
    // The requests land in exactly one 30 s step: the one starting 2 minutes before the end.
    const step = body.times.indexOf(NOW - 120_000);
    expect(row(1).series.ratePerSecond[step]).toBe(1);
    expect(
      row(1)
        .series.ratePerSecond.filter((_: number, i: number) => i !== step)
        .every((n: number) => n === 0),
    ).toBe(true);
    expect(row(1).series.errorRate[step]).toBe(0.1);
    expect(body.rows.find((r: any) => r.task === 'intent')).toMatchObject({
      model: 'intent-zh',
      version: 1,
      summary: { requests: 0 },
    });
  });

  it('lists jobs of all tenants, cancels one and downloads the results written so far', async () => {
    await jobs.commit(job('job-acme', 'acme', 'running'));
    await jobs.commit(job('job-globex', 'globex', 'queued'));
    const items = [
      { id: 'a', text: 'x' },
      { id: 'b', text: 'y' },
    ];
    await jobs.writeResults('job-acme', 0, items, [
      { kind: 'classification', label: 'how', score: 0.9, scores: [{ label: 'how', score: 0.9 }] },
      { kind: 'error', error: { code: 'TEXT_TOO_LONG', message: 'too long' } },
    ]);
    const list = await json('GET', '/v1/dashboard/jobs');
    const acme = list.body.jobs.find((j: any) => j.id === 'job-acme');
    expect(list.body.jobs.map((j: any) => j.tenant).sort()).toEqual(['acme', 'globex']);
    expect(acme).toMatchObject({ state: 'running', processed: 2, total: 4, itemsPerSecond: 0 });
    expect(acme.etaSeconds).toBeGreaterThan(0);

    const download = await call('GET', '/v1/dashboard/jobs/job-acme/results');
    expect(download.headers.get('content-disposition')).toContain('job-acme.ndjson');
    const lines = (await download.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        index: 0,
        id: 'a',
        model: 'question-type-zh',
        version: 1,
        pipeline: 'text-classification',
        label: 'how',
        score: 0.9,
        scores: [{ label: 'how', score: 0.9 }],
      },
      { index: 1, id: 'b', error: { code: 'TEXT_TOO_LONG', message: 'too long' } },
    ]);

    const cancelled = await json('POST', '/v1/dashboard/jobs/job-globex/cancel');
    expect(cancelled.body).toMatchObject({ id: 'job-globex', state: 'cancelled' });
    expect((await jobs.get('job-globex'))?.state).toBe('cancelled');
    expect((await call('POST', '/v1/dashboard/jobs/job-none/cancel')).status).toBe(404);
    expect((await call('GET', '/v1/dashboard/jobs/job-none/results')).status).toBe(404);
  });

  it('reports an unreachable backend in the Models view', async () => {
    const { body } = await json('GET', '/v1/dashboard/models');
    expect(body.backends).toHaveLength(1);
    expect(body.backends[0]).toMatchObject({ address: '127.0.0.1:1', models: [] });
    expect(body.backends[0].error).toEqual(expect.any(String));
    expect(body.backends[0].ledger).toBeUndefined();
    expect(body.decisions).toEqual([]);
  });

  it("shows the placer's ledger per backend and its newest decisions first", async () => {
    const resident = [{ model: 'intent-zh', version: 2, mb: 120, since: 1000, lastUsedAt: 5000 }];
    await redis.hset(
      new PlacementKeys(PREFIX).ledger(),
      '127.0.0.1:1',
      JSON.stringify({ backend: '127.0.0.1:1', budgetMb: 512, usedMb: 120, resident, at: 6000 }),
    );
    const audit = new PlacementAudit(redis, PREFIX);
    const load = {
      at: 1000,
      action: 'load' as const,
      model: 'intent-zh',
      version: 2,
      backend: '127.0.0.1:1',
      reason: 'demand' as const,
      mb: 120,
    };
    await audit.append(load);
    await audit.append({ ...load, at: 2000, action: 'unload', version: 1, reason: 'evict' });
    const { body } = await json('GET', '/v1/dashboard/models');
    expect(body.backends[0].ledger).toEqual({ budgetMb: 512, usedMb: 120, resident, at: 6000 });
    expect(body.decisions.map((d: { version: number }) => d.version)).toEqual([1, 2]);
    expect(body.decisions[0]).toMatchObject({ action: 'unload', reason: 'evict', mb: 120 });
  });

  it('streams a view as NDJSON: a snapshot at once, another when the routing table changes', async () => {
    const stop = new AbortController();
    const res = await fetch(`${base}/v1/dashboard/routes/stream`, {
      headers: { authorization: `Bearer ${ADMIN}` },
      signal: stop.signal,
    });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    const next = async (): Promise<any> => {
      for (;;) {
        const i = buf.indexOf('\n');
        if (i >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) return JSON.parse(line);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += value;
      }
    };
    const first = await next();
    expect(first.view).toBe('routes');
    const epoch = first.data.epoch as number;
    await table.upsertRoute(
      {
        tenant: '*',
        task: 'question-type',
        model: 'question-type-zh',
        versions: [{ version: 1, weight: 100 }],
      },
      { who: 'test' },
    );
    let line = await next();
    while (line.data.epoch === epoch) line = await next();
    expect(line.data.epoch).toBe(epoch + 1);
    stop.abort();
  });

  it('answers /ui with 404 naming the build step when the assets are not built', async () => {
    const res = await fetch(`${base}/ui`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toContain('npm run build');
    expect((await fetch(`${base}/ui/secrets.txt`)).status).toBe(404);
  });
});
