/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON and grpc-js dynamic clients are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import { createRedis, closeRedis, type RedisClient } from '@mesh/config';
import { startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';
import {
  bearer,
  jobStatus,
  jobsClient,
  ndjsonOf,
  resultProblems,
  results,
  startWorker,
  submitNdjson,
  textOf,
  waitForProgress,
  waitForState,
} from './support/bulk-jobs';
import {
  ACME_KEY,
  ADMIN_KEY,
  GLOBEX_KEY,
  call,
  hostPort,
  startMesh,
  type Mesh,
} from './support/router-mesh';

jest.setTimeout(240_000);

const prefix = uniquePrefix(__filename);
let mesh: Mesh;
let redis: RedisClient;
const workers: StartedApp[] = [];

const admin = (method: string, path: string, body?: unknown) =>
  call(mesh.http, method, `/v1/admin${path}`, { key: ADMIN_KEY, body });

beforeAll(async () => {
  mesh = await startMesh(prefix, { routerEnv: { JOBS_CHUNK_SIZE: '500' } });
  redis = createRedis('commands', { url: 'redis://127.0.0.1:6379', name: 'bulk-e2e' });
  const env = {
    REDIS_KEY_PREFIX: prefix,
    KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
    WORKER_CONCURRENCY: '2',
  };
  workers.push(...(await Promise.all([startWorker(env), startWorker(env)])));
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await mesh?.stop();
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await closeRedis(redis);
  }
});

describe('bulk jobs (router + model host + two workers, real Redis)', () => {
  it('runs a 100k-item NDJSON job through a route-weight change and a worker SIGKILL: every index once, in order, on the pinned version', async () => {
    const total = 100_000;
    // acme's intent route over two versions of one model (both dynamic padding, short texts).
    const split = await admin('PUT', '/routes', {
      tenant: 'acme',
      task: 'intent',
      model: 'intent-zh',
      versions: [
        { version: 2, weight: 50 },
        { version: 3, weight: 50 },
      ],
    });
    expect(split.status).toBe(200);
    // acme was on version 2 alone: a predict answered by version 3 shows the router has the split.
    await pollUntil(
      async () => {
        const p = await call(mesh.http, 'POST', '/v1/predict', {
          key: ACME_KEY,
          body: { task: 'intent', text: '你好' },
        });
        return p.body.version === 3 ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'the router to follow the 50/50 split' },
    );
    const submitted = await submitNdjson(mesh.http, ACME_KEY, 'intent', ndjsonOf(total));
    expect(submitted.status).toBe(202);
    const job = submitted.body;
    expect(job).toMatchObject({ model: 'intent-zh', pipeline: 'bert-wordpiece@2', total });
    expect([2, 3]).toContain(job.version);
    const other = job.version === 2 ? 3 : 2;

    await waitForProgress(mesh.http, ACME_KEY, job.jobId, 5_000, 240_000);
    // Every new request now goes to the other version; the running job must not follow.
    const flip = await admin('PUT', '/routes', {
      tenant: 'acme',
      task: 'intent',
      model: 'intent-zh',
      versions: [
        { version: job.version, weight: 0 },
        { version: other, weight: 100 },
      ],
    });
    expect(flip.status).toBe(200);
    await pollUntil(
      async () => {
        const p = await call(mesh.http, 'POST', '/v1/predict', {
          key: ACME_KEY,
          body: { task: 'intent', text: '你好' },
        });
        return p.body.version === other ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'the router to follow the new weights' },
    );

    await waitForProgress(mesh.http, ACME_KEY, job.jobId, 20_000, 240_000);
    const killed = workers.shift()!;
    await killed.stop('SIGKILL');

    const done = await waitForState(
      mesh.http,
      ACME_KEY,
      job.jobId,
      ['completed', 'failed'],
      240_000,
    );
    expect(done).toMatchObject({
      state: 'completed',
      total,
      processed: total,
      succeeded: total,
      failedItems: 0,
    });

    expect(resultProblems(await results(mesh.http, ACME_KEY, job.jobId), total, job)).toEqual([]);

    // A job submitted now is pinned to the new weights' version.
    const after = await call(mesh.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'intent', items: [{ text: '你好' }] },
    });
    expect(after.body.version).toBe(other);
  }, 900_000);

  it('pins a job with text pairs to a pair-capable pipeline, reports over-long texts per item, and resumes with ?from=', async () => {
    const res = await call(mesh.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      headers: { 'idempotency-key': `pairs-${prefix}` },
      body: {
        task: 'question-type',
        items: [
          { id: 'a', text: '这是什么', textPair: '一个问题' },
          { id: 'b', text: 'x'.repeat(20_001) },
          { id: 7, text: textOf(3) },
          { text: textOf(4) },
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.pipeline).toBe('bert-wordpiece@2');
    const retry = await call(mesh.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      headers: { 'idempotency-key': `pairs-${prefix}` },
      body: { task: 'question-type', items: [{ text: 'anything' }] },
    });
    expect(retry.status).toBe(202);
    expect(retry.body.jobId).toBe(res.body.jobId);

    const done = await waitForState(mesh.http, ACME_KEY, res.body.jobId, ['completed']);
    expect(done).toMatchObject({ total: 4, processed: 4, succeeded: 3, failedItems: 1 });
    const lines = await results(mesh.http, ACME_KEY, res.body.jobId);
    expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3]);
    expect(lines[1]).toMatchObject({ index: 1, id: 'b', error: { code: 'TEXT_TOO_LONG' } });
    expect(lines[2]).toMatchObject({ index: 2, id: 7, version: res.body.version });
    expect(lines[3].id).toBeUndefined();
    const tail = await results(mesh.http, ACME_KEY, res.body.jobId, 2);
    expect(tail.map((l) => l.index)).toEqual([2, 3]);

    const sse = await fetch(`${mesh.http}/v1/jobs/${res.body.jobId}/events`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    const events = await sse.text();
    expect(events).toContain('event: end');
    expect(events).toContain('"state":"completed"');
  });

  it('accepts empty and whitespace-only items and reports each as its own item error, in order, once', async () => {
    const items = [
      { id: 'a', text: '今天天气怎么样' },
      { id: 'empty', text: '' },
      { id: 'blank', text: ' \u3000\t' },
      { id: 'pair', text: '这是什么', textPair: '  ' },
      { id: 'z', text: '帮我订票' },
    ];
    const json = await call(mesh.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'question-type', items },
    });
    const ndjson = await submitNdjson(
      mesh.http,
      ACME_KEY,
      'question-type',
      `${items.map((i) => JSON.stringify(i)).join('\n')}\n`,
    );
    for (const submitted of [json, ndjson]) {
      expect(submitted.status).toBe(202);
      expect(submitted.body.total).toBe(5);
      const id = submitted.body.jobId;
      const done = await waitForState(mesh.http, ACME_KEY, id, ['completed']);
      expect(done).toMatchObject({ processed: 5, succeeded: 2, failedItems: 3 });
      const lines = await results(mesh.http, ACME_KEY, id);
      expect(lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4]);
      expect(lines.map((l) => l.error ?? l.id)).toEqual([
        'a',
        { code: 'INVALID_ARGUMENT', message: 'text: must not be empty' },
        { code: 'INVALID_ARGUMENT', message: 'text: must not be empty' },
        { code: 'INVALID_ARGUMENT', message: 'textPair: must not be empty' },
        'z',
      ]);
      expect(lines.slice(1, 4).map((l) => l.id)).toEqual(['empty', 'blank', 'pair']);
    }
  });

  it('cancel stops a job: unprocessed chunks are dropped and the results end at what ran', async () => {
    const total = 20_000;
    const submitted = await submitNdjson(
      mesh.http,
      ACME_KEY,
      'sentiment',
      ndjsonOf(total, (i) => ({ text: `review ${i} was fine` })),
    );
    expect(submitted.status).toBe(202);
    const id = submitted.body.jobId;
    await waitForProgress(mesh.http, ACME_KEY, id, 1);
    const cancelled = await call(mesh.http, 'DELETE', `/v1/jobs/${id}`, { key: ACME_KEY });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    // The results stream of an ended job finishes; it holds exactly the chunks that ran.
    const lines = await pollUntil(
      async () => {
        const [status, got] = await Promise.all([
          jobStatus(mesh.http, ACME_KEY, id),
          results(mesh.http, ACME_KEY, id),
        ]);
        return got.length === status.processed ? got : undefined;
      },
      { timeoutMs: 30_000, what: 'results to match processed' },
    );
    expect(lines.length).toBeLessThan(total);
    expect(new Set(lines.map((l) => l.index)).size).toBe(lines.length);
    const final = await jobStatus(mesh.http, ACME_KEY, id);
    expect(final.state).toBe('cancelled');
  });

  it("answers 404 to every job endpoint for another tenant's job, over HTTP and gRPC; the admin sees it", async () => {
    const res = await call(mesh.http, 'POST', '/v1/jobs', {
      key: ACME_KEY,
      body: { task: 'sentiment', items: [{ text: 'good' }] },
    });
    const id = res.body.jobId;
    for (const [method, path] of [
      ['GET', `/v1/jobs/${id}`],
      ['GET', `/v1/jobs/${id}/results`],
      ['GET', `/v1/jobs/${id}/events`],
      ['DELETE', `/v1/jobs/${id}`],
    ] as const) {
      const r = await call(mesh.http, method, path, { key: GLOBEX_KEY });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, 'JOB_NOT_FOUND']);
    }
    const theirs = await call(mesh.http, 'GET', '/v1/jobs', { key: GLOBEX_KEY });
    expect(theirs.body.jobs.map((j: any) => j.id)).not.toContain(id);
    const mine = await call(mesh.http, 'GET', '/v1/jobs', { key: ACME_KEY });
    expect(mine.body.jobs.map((j: any) => j.id)).toContain(id);

    const client = jobsClient(mesh.grpcAddress);
    for (const method of ['getJob', 'cancelJob']) {
      const err = await new Promise<grpc.ServiceError | null>((resolve) =>
        client[method]({ jobId: id }, bearer(GLOBEX_KEY), (e: grpc.ServiceError | null) =>
          resolve(e),
        ),
      );
      expect([method, err?.code]).toEqual([method, grpc.status.NOT_FOUND]);
    }
    const streamErr = await new Promise<grpc.ServiceError | undefined>((resolve) => {
      const stream = client.getJobResults({ jobId: id, fromIndex: 0 }, bearer(GLOBEX_KEY));
      stream.on('data', () => undefined);
      stream.on('error', resolve);
      stream.on('end', () => resolve(undefined));
    });
    expect(streamErr?.code).toBe(grpc.status.NOT_FOUND);
    const listed = await new Promise<any>((resolve, reject) =>
      client.listJobs(
        { state: '', limit: 100 },
        bearer(GLOBEX_KEY),
        (e: grpc.ServiceError | null, r: any) => (e ? reject(e) : resolve(r)),
      ),
    );
    expect(listed.jobs.map((j: any) => j.id)).not.toContain(id);
    client.close();
    // The owner's job is untouched by the other tenant's cancel.
    expect((await jobStatus(mesh.http, ACME_KEY, id)).state).not.toBe('cancelled');

    const adminList = await call(mesh.http, 'GET', '/v1/admin/jobs', { key: ADMIN_KEY });
    expect(adminList.body.jobs.find((j: any) => j.id === id)).toMatchObject({ tenant: 'acme' });
    expect((await call(mesh.http, 'GET', '/v1/admin/jobs', { key: ACME_KEY })).status).toBe(403);
  });

  it('submits over gRPC as a client stream and streams the results back in order', async () => {
    const client = jobsClient(mesh.grpcAddress);
    const submitted = await new Promise<any>((resolve, reject) => {
      const call = client.submitJob(bearer(ACME_KEY), (e: grpc.ServiceError | null, r: any) =>
        e ? reject(e) : resolve(r),
      );
      call.write({ task: 'sentiment', items: [{ id: 'g0', text: 'great' }] });
      call.write({ items: [{ text: 'awful' }, { id: 'g2', text: 'fine' }] });
      call.end();
    });
    expect(submitted).toMatchObject({ model: 'sentiment-en', version: 1, total: 3 });
    await waitForState(mesh.http, ACME_KEY, submitted.jobId, ['completed']);
    const got: any[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = client.getJobResults(
        { jobId: submitted.jobId, fromIndex: 0 },
        bearer(ACME_KEY),
      );
      stream.on('data', (m: any) => got.push(m));
      stream.on('error', reject);
      stream.on('end', resolve);
    });
    expect(got.map((m) => [m.index, m.id])).toEqual([
      [0, 'g0'],
      [1, ''],
      [2, 'g2'],
    ]);
    expect(got.every((m) => m.model === 'sentiment-en' && m.label.length > 0)).toBe(true);
    client.close();
  });
});

describe('bulk job input checks (a router of its own, small caps, no worker)', () => {
  let router: StartedApp;
  let base: string;
  const capPrefix = `${prefix}-caps`;

  beforeAll(async () => {
    router = await startApp(
      'router',
      {
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        REDIS_KEY_PREFIX: capPrefix,
        KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
        ADMIN_API_KEY: ADMIN_KEY,
        KSERVE_HEALTH_INTERVAL_MS: '200',
        JOBS_MAX_ITEMS: '5',
        JOBS_MAX_UPLOAD_BYTES: '4096',
        JOBS_DEFAULT_MAX_CONCURRENT_JOBS: '1',
        JOBS_STREAM_POLL_MS: '50',
      },
      { listeners: ['http', 'grpc'], timeoutMs: 120_000 },
    );
    base = router.urls.http!;
    await pollUntil(
      async () => ((await fetch(`${base}/healthz/ready`)).status === 200 ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'router readiness',
      },
    );
  });

  afterAll(async () => {
    await router?.stop('SIGKILL');
    const keys = await redis.keys(`${capPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  const storedJobKeys = async () => (await redis.keys(`${capPrefix}:{job:*`)).length;

  it('refuses bad uploads with a 4xx naming the problem, and stores nothing', async () => {
    const cases: [string, () => Promise<{ status: number; body: any }>, number, RegExp][] = [
      [
        'not JSON',
        () => submitNdjson(base, ACME_KEY, 'sentiment', '{"text":"a"}\n{"text": nope}\n'),
        400,
        /^line 2: not valid JSON/,
      ],
      [
        'no text',
        () => submitNdjson(base, ACME_KEY, 'sentiment', '{"text":"a"}\n\n{"id":1}\n'),
        400,
        /^line 3: text: is required/,
      ],
      ['empty', () => submitNdjson(base, ACME_KEY, 'sentiment', '\n'), 400, /no items/],
      [
        'over the item cap',
        () => submitNdjson(base, ACME_KEY, 'sentiment', ndjsonOf(6)),
        413,
        /5 items/,
      ],
      [
        'over the byte cap',
        () =>
          submitNdjson(
            base,
            ACME_KEY,
            'sentiment',
            ndjsonOf(2, () => ({ text: 'x'.repeat(3000) })),
          ),
        413,
        /^the upload exceeds the limit of 4096 bytes$/,
      ],
      [
        'unknown task',
        () => submitNdjson(base, ACME_KEY, 'no-such-task', ndjsonOf(1)),
        404,
        /no-such-task/,
      ],
      ['no task', () => submitNdjson(base, ACME_KEY, '', ndjsonOf(1)), 400, /task/],
      [
        'JSON item without text',
        () =>
          call(base, 'POST', '/v1/jobs', {
            key: ACME_KEY,
            body: { task: 'sentiment', items: [{ text: 'a' }, { id: 1 }] },
          }),
        400,
        /items\[1\]: text: is required/,
      ],
    ];
    for (const [name, run, status, message] of cases) {
      const r = await run();
      expect([name, r.status]).toEqual([name, status]);
      expect(r.body.error.message).toMatch(message);
    }
    expect(await storedJobKeys()).toBe(0);
  });

  it('answers 429 over the concurrent-jobs quota, also to concurrent submits, and a results stream ends cleanly on SIGTERM', async () => {
    // Six submits at once against maxConcurrentJobs 1: the reservation is atomic, one wins.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => submitNdjson(base, ACME_KEY, 'sentiment', ndjsonOf(2))),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([202, 429, 429, 429, 429, 429]);
    const first = racing.find((r) => r.status === 202)!;
    const refused = racing.find((r) => r.status === 429)!;
    expect(refused.body.error.code).toBe('JOB_QUOTA_EXCEEDED');
    expect(refused.body.error.message).toMatch(/1 unfinished jobs \(limit 1\)/);
    // The refused uploads left nothing: one job record, the winner's.
    expect(await redis.keys(`${capPrefix}:{job:*}:meta`)).toEqual([
      `${capPrefix}:{job:${first.body.jobId}}:meta`,
    ]);
    const status = await jobStatus(base, ACME_KEY, first.body.jobId);
    expect(status.state).toBe('queued');

    // No worker runs here: the stream waits for chunk 0 until the router is told to stop.
    const res = await fetch(`${base}/v1/jobs/${first.body.jobId}/results`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    expect(res.status).toBe(200);
    const body = res.text();
    const code = await router.stop('SIGTERM');
    expect(await body).toBe('');
    expect(code).toBe(0);
  });
});
