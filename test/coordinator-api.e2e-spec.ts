import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { RoutingTableRepository } from '@mesh/routing';
import { startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { postExpectContinue } from './support/router-mesh';

jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
const ADMIN = 'coordinator-e2e-admin-key';
let app: StartedApp;
let redis: RedisClient;

const plan = {
  task: 'question-type',
  model: 'question-type-zh',
  toVersion: 2,
  steps: [
    { weight: 10, holdSeconds: 5 },
    { weight: 100, holdSeconds: 5 },
  ],
};

function call(method: string, path: string, body?: unknown, key: string | null = ADMIN) {
  return fetch(`${app.urls.http}${path}`, {
    method,
    headers: {
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'coordinator-api-e2e',
  });
  await new RoutingTableRepository(redis, { keyPrefix: prefix }).seedIfAbsent(
    {
      tenants: [],
      routes: [
        {
          tenant: '*',
          task: 'question-type',
          model: 'question-type-zh',
          versions: [{ version: 1, weight: 100 }],
        },
      ],
    },
    'e2e',
  );
  // No backend listens here; the API does not need one (the leader loop only logs).
  app = await startApp('coordinator', {
    COORDINATOR_PORT: '0',
    REDIS_KEY_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN,
    KSERVE_ENDPOINTS: '127.0.0.1:1',
  });
});

afterAll(async () => {
  await app?.stop('SIGTERM');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('coordinator rollout API (process, real Redis)', () => {
  it('guards every call with the admin key: 401 without, 403 with another key', async () => {
    expect((await call('GET', '/v1/rollouts', undefined, null)).status).toBe(401);
    const wrong = await call('GET', '/v1/rollouts', undefined, 'not-the-key');
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({
      error: { code: 'ADMIN_FORBIDDEN', message: 'admin access requires the admin API key' },
    });
  });

  it('refuses bad plans with 4xx naming what is wrong', async () => {
    const cases: [unknown, number, string][] = [
      [{ ...plan, model: 'nope' }, 422, "model 'nope' is not in the model repository"],
      [
        { ...plan, toVersion: 7 },
        422,
        "version 7 of 'question-type-zh' is not in the model repository",
      ],
      [{ ...plan, steps: [{ weight: 50, holdSeconds: 1 }] }, 400, 'the last step must be 100'],
      [
        { ...plan, window: { cron: 'every day', timezone: 'UTC', durationMinutes: 5 } },
        400,
        'window.cron',
      ],
      ['{"task":', 400, ''],
    ];
    for (const [body, status, text] of cases) {
      const res = await call('POST', '/v1/rollouts', body);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect([res.status, json.error.message.includes(text)]).toEqual([status, true]);
    }
  });

  it('names every mistake of a plan in one 400: shape errors and the rules across fields together', async () => {
    const res = await call('POST', '/v1/rollouts', {
      ...plan,
      toVersion: 0,
      steps: [
        { weight: 50, holdSeconds: 5 },
        { weight: 20, holdSeconds: 5 },
        { weight: 90, holdSeconds: 5 },
      ],
      window: { cron: '61 * * * *', timezone: 'Mars/Olympus', durationMinutes: 60 },
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as {
      error: { code: string; message: string; details: { issues: { path: string }[] } };
    };
    expect(error.code).toBe('INVALID_PLAN');
    expect(error.details.issues.map((i) => i.path)).toEqual([
      'toVersion',
      'steps[1].weight',
      'steps[2].weight',
      'window.timezone',
      'window.cron',
    ]);
    expect(error.message).toMatch(/^rollout plan: 5 problems: toVersion: .*; window\.cron: /);
  });

  it('names the body limit in bytes when a body is over it', async () => {
    const res = await postExpectContinue(
      `${app.urls.http}/v1/rollouts`,
      JSON.stringify({ ...plan, pad: 'x'.repeat(1024 * 1024) }),
      { authorization: `Bearer ${ADMIN}` },
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: 'request body exceeds the limit of 1048576 bytes',
        details: { limitBytes: 1048576 },
      },
    });
    // Refused on the declared length, before the client uploads any of it.
    expect(res.uploaded).toBe(false);
  });

  it('answers an unknown dashboard view with 400 listing the views', async () => {
    const res = await call('GET', '/v1/dashboard/nope');
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: "view: must be one of routes, traffic, rollouts, jobs, models (got 'nope')",
    });
    expect((await call('GET', '/v1/dashboard/nope/stream')).status).toBe(400);
  });

  it('creates a rollout (201 pending), lists it, shows it, refuses an overlapping one, queues commands', async () => {
    const created = await call('POST', '/v1/rollouts', plan);
    expect(created.status).toBe(201);
    const view = (await created.json()) as { id: string; state: string; timeline: unknown[] };
    expect(view).toMatchObject({
      state: 'pending',
      step: 0,
      weights: [{ version: 1, weight: 100 }],
    });

    const overlap = await call('POST', '/v1/rollouts', plan);
    expect(overlap.status).toBe(409);
    expect(((await overlap.json()) as { error: { message: string } }).error.message).toContain(
      view.id,
    );

    const list = (await (await call('GET', '/v1/rollouts')).json()) as {
      rollouts: { id: string }[];
    };
    expect(list.rollouts.map((r) => r.id)).toEqual([view.id]);
    const one = await call('GET', `/v1/rollouts/${view.id}`);
    expect(await one.json()).toMatchObject({ id: view.id, plan: { tenant: '*', toVersion: 2 } });

    const pause = await call('POST', `/v1/rollouts/${view.id}/pause`);
    expect(pause.status).toBe(202);
    expect(await pause.json()).toMatchObject({ pendingCommand: 'pause' });
    expect((await call('POST', `/v1/rollouts/${view.id}/resume`)).status).toBe(409);
    const unknown = await call('POST', `/v1/rollouts/${view.id}/explode`);
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: "command: must be one of pause, resume, abort, promote, undo (got 'explode')",
        details: {
          issues: [
            {
              path: 'command',
              message: "must be one of pause, resume, abort, promote, undo (got 'explode')",
            },
          ],
        },
      },
    });
    expect((await call('GET', '/v1/rollouts/ro-unknown')).status).toBe(404);
  });
});
