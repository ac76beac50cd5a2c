import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { ERROR_TABLE } from '@mesh/errors';
import { COMMANDS_ACCEPTED, OPERATOR_COMMANDS, ROLLOUT_STATES } from '@mesh/rollout-contract';
import { RoutingTableRepository } from '@mesh/routing';
import { RepositoryModelCatalog } from '../fleet/repository-model.catalog';
import { RoutingRouteStore } from '../fleet/routing.route-store';
import { FakeClock } from '../testing/fake-mesh';
import { rolloutRecord } from '../testing/rollout-fixtures';
import { RolloutPlanValidator } from './rollout-plan.validator';
import {
  InvalidCommandError,
  InvalidPlanError,
  PlanRejectedError,
  RolloutConflictError,
  RolloutNotFoundError,
} from './rollout.errors';
import { RolloutRepository } from './rollout.repository';
import { RolloutService } from './rollout.service';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test:rollout-service:${randomUUID().slice(0, 8)}`;
const REPO = join(__dirname, '..', '..', '..', '..', 'model_repository');
let redis: RedisClient;
let repoDir: string;
let n = 0;

const plan = {
  task: 'question-type',
  model: 'question-type-zh',
  toVersion: 2,
  steps: [
    { weight: 10, holdSeconds: 5 },
    { weight: 100, holdSeconds: 5 },
  ],
};

beforeAll(() => {
  redis = createRedis('commands', { url: REDIS_URL, name: 'test-rollout.service' });
  // A copy of the demo repository (without model files) with one broken manifest.
  repoDir = mkdtempSync(join(tmpdir(), 'rollout-catalog-'));
  cpSync(REPO, repoDir, { recursive: true, filter: (src) => !src.endsWith('.onnx') });
  const broken = join(repoDir, 'intent-zh', '3', 'preprocess.json');
  const manifest = JSON.parse(readFileSync(broken, 'utf8')) as { tokenizer: { sha256: string } };
  manifest.tokenizer.sha256 = '0'.repeat(64);
  writeFileSync(broken, JSON.stringify(manifest));
});

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
  rmSync(repoDir, { recursive: true, force: true });
});

async function service() {
  n += 1;
  const prefix = `${PREFIX}:${n}`;
  const table = new RoutingTableRepository(redis, { keyPrefix: prefix });
  await table.seedIfAbsent(
    {
      tenants: [],
      routes: [
        {
          tenant: '*',
          task: 'question-type',
          model: 'question-type-zh',
          versions: [{ version: 1, weight: 100 }],
        },
        {
          tenant: '*',
          task: 'intent',
          model: 'intent-zh',
          versions: [{ version: 2, weight: 100 }],
          shadow: { version: 3, percent: 5 },
        },
      ],
    },
    'test',
  );
  const routes = new RoutingRouteStore(table, () => undefined);
  const validator = new RolloutPlanValidator(new RepositoryModelCatalog(repoDir), routes);
  const repository = new RolloutRepository(redis, prefix);
  return {
    svc: new RolloutService(
      repository,
      validator,
      new FakeClock(Date.parse('2026-12-01T00:00:00Z')),
    ),
    repository,
  };
}

async function rejection(promise: Promise<unknown>): Promise<{ name: string; issues: string[] }> {
  try {
    await promise;
  } catch (err: unknown) {
    if (err instanceof PlanRejectedError || err instanceof InvalidPlanError) {
      return { name: err.name, issues: err.issues.map((i) => `${i.path}: ${i.message}`) };
    }
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('RolloutService (real Redis, real model repository)', () => {
  it('accepts a valid plan as pending, remembering the route versions a rollback restores', async () => {
    const { svc, repository } = await service();
    const created = await svc.create(plan);
    expect(created).toMatchObject({
      state: 'pending',
      step: 0,
      weights: [{ version: 1, weight: 100 }],
    });
    expect(created.id).toMatch(/^ro-20261201-[0-9a-f]{8}$/);
    await expect(svc.get(created.id)).resolves.toEqual(created);
    await expect(svc.list()).resolves.toEqual([created]);
    expect((await repository.get(created.id))?.fromVersions).toEqual([{ version: 1, weight: 100 }]);
  });

  it.each([
    [{ ...plan, model: 'nope-zh' }, "model: model 'nope-zh' is not in the model repository"],
    [
      { ...plan, toVersion: 9 },
      "toVersion: version 9 of 'question-type-zh' is not in the model repository (versions: 1, 2)",
    ],
    [
      { ...plan, task: 'intent', model: 'intent-zh', toVersion: 3 },
      "toVersion: version 3 of 'intent-zh' fails its manifest check",
    ],
    [{ ...plan, task: 'sentiment' }, "task: no route for tenant '*' and task 'sentiment'"],
    [{ ...plan, tenant: 'acme' }, "task: no route for tenant 'acme' and task 'question-type'"],
    [
      { ...plan, model: 'intent-zh', toVersion: 3 },
      "model: route (*, question-type) serves model 'question-type-zh', not 'intent-zh'",
    ],
    [
      { ...plan, toVersion: 1 },
      'toVersion: route (*, question-type) already sends all traffic to version 1',
    ],
    [
      {
        ...plan,
        task: 'intent',
        model: 'intent-zh',
        toVersion: 1,
        shadow: { sampleRate: 0.1, holdSeconds: 5, minAgreement: 0.9 },
      },
      'shadow: route (*, intent) already mirrors to version 3; remove that shadow first',
    ],
  ])('refuses %j with 422 naming the problem', async (input, expected) => {
    const { svc } = await service();
    const { name, issues } = await rejection(svc.create(input));
    expect(name).toBe('PlanRejectedError');
    expect(issues.some((i) => i.startsWith(expected))).toBe(true);
  });

  it('refuses a malformed plan (weights not ending at 100, bad cron) before looking at the mesh', async () => {
    const { svc } = await service();
    const bad = await rejection(
      svc.create({
        ...plan,
        model: 'nope',
        steps: [{ weight: 50, holdSeconds: 1 }],
        window: { cron: '0 25 * * *', timezone: 'UTC', durationMinutes: 5 },
      }),
    );
    expect(bad.name).toBe('InvalidPlanError');
    expect(bad.issues).toEqual([
      'steps[0].weight: the last step must be 100 (got 50)',
      expect.stringMatching(/^window\.cron: cannot parse '0 25 \* \* \*'/),
    ]);
  });

  it('allows one active rollout per (tenant, task), freed once it is terminal', async () => {
    const { svc, repository } = await service();
    const first = await svc.create(plan);
    await expect(svc.create(plan)).rejects.toBeInstanceOf(RolloutConflictError);
    await expect(
      svc.create({ ...plan, task: 'intent', model: 'intent-zh', toVersion: 1 }),
    ).resolves.toMatchObject({
      state: 'pending',
    });
    const record = await repository.get(first.id);
    if (!record) throw new Error('missing');
    await repository.save({ ...record, state: 'aborted' });
    await expect(svc.create(plan)).resolves.toMatchObject({ state: 'pending' });
  });

  it('queues operator commands valid for the state and refuses the others', async () => {
    const { svc, repository } = await service();
    const created = await svc.create(plan);
    await expect(svc.command(created.id, 'resume')).rejects.toThrow(
      'cannot resume a rollout that is pending',
    );
    await expect(svc.command(created.id, 'promote')).rejects.toBeInstanceOf(InvalidCommandError);
    const paused = await svc.command(created.id, 'pause');
    expect(paused.pendingCommand).toBe('pause');
    await expect(svc.command(created.id, 'abort')).rejects.toThrow("still carrying out 'pause'");
    expect((await repository.get(created.id))?.command?.kind).toBe('pause');
    await expect(svc.command('ro-missing', 'pause')).rejects.toBeInstanceOf(RolloutNotFoundError);
    await expect(svc.get('../etc')).rejects.toBeInstanceOf(RolloutNotFoundError);
  });

  it('queues exactly the commands COMMANDS_ACCEPTED lists for each state; any other is a 409 INVALID_COMMAND', async () => {
    const { svc, repository } = await service();
    for (const state of ROLLOUT_STATES) {
      for (const command of OPERATOR_COMMANDS) {
        const id = `ro-walk-${state}-${command}`;
        await repository.create(rolloutRecord({ id, state, plan: { tenant: id } }));
        const refused = await svc.command(id, command).then(
          () => undefined,
          (err: unknown) => err,
        );
        const accepted = (COMMANDS_ACCEPTED[state] as readonly string[]).includes(command);
        if (accepted) {
          expect([state, command, refused]).toEqual([state, command, undefined]);
          expect((await repository.get(id))?.command?.kind).toBe(command);
        } else {
          expect(refused).toBeInstanceOf(InvalidCommandError);
          const code = (refused as InvalidCommandError).code;
          expect([state, command, code, ERROR_TABLE[code].http]).toEqual([
            state,
            command,
            'INVALID_COMMAND',
            409,
          ]);
          expect((await repository.get(id))?.command).toBeUndefined();
        }
      }
    }
  });
});
