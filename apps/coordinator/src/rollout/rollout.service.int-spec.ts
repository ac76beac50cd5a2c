import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_TABLE } from '@mesh/errors';
import { COMMANDS_ACCEPTED, OPERATOR_COMMANDS, ROLLOUT_STATES } from '@mesh/rollout-contract';
import { FakeClock } from '../testing/fake-mesh';
import { MINIMAL_PLAN_BODY, rolloutRecord } from '../testing/rollout-fixtures';
import { rolloutServiceRig } from '../testing/rollout-service-rig';
import {
  InvalidCommandError,
  InvalidPlanError,
  PlanRejectedError,
  RolloutConflictError,
  RolloutNotFoundError,
  RouteChangedError,
} from './rollout.errors';
import { suiteRedis } from '../../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-rollout.service');
const PREFIX = suite.prefix;
const REPO = join(__dirname, '..', '..', '..', '..', 'model_repository');
let repoDir: string;
let n = 0;

const plan = MINIMAL_PLAN_BODY;

beforeAll(() => {
  // A copy of the demo repository (without model files) with one broken manifest.
  repoDir = mkdtempSync(join(tmpdir(), 'rollout-catalog-'));
  cpSync(REPO, repoDir, { recursive: true, filter: (src) => !src.endsWith('.onnx') });
  const broken = join(repoDir, 'intent-zh', '3', 'preprocess.json');
  const manifest = JSON.parse(readFileSync(broken, 'utf8')) as { tokenizer: { sha256: string } };
  manifest.tokenizer.sha256 = '0'.repeat(64);
  writeFileSync(broken, JSON.stringify(manifest));
});

afterAll(async () => {
  await suite.close();
  rmSync(repoDir, { recursive: true, force: true });
});

async function service() {
  n += 1;
  const { service: svc, ...rest } = await rolloutServiceRig(
    suite.redis,
    `${PREFIX}:${n}`,
    repoDir,
    new FakeClock(Date.parse('2026-12-01T00:00:00Z')),
    { versions: [{ version: 2, weight: 100 }], shadow: { version: 3, percent: 5 } },
  );
  return { svc, ...rest };
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
        if (accepted && command === 'undo') {
          // Not queued: an undo starts a new rollout (its own tests below); this fixture's
          // route has no history, so it is refused for another reason than the command.
          expect(refused).not.toBeInstanceOf(InvalidCommandError);
          expect((await repository.get(id))?.command).toBeUndefined();
        } else if (accepted) {
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

describe('RolloutService.undo (real Redis, real routing table and audit)', () => {
  const questionType = { tenant: '*', task: 'question-type', model: 'question-type-zh' };

  /** (*, question-type) moved from v1:100 to v2:100 by ro-done, which completed. */
  async function completed() {
    const setup = await service();
    const { epoch } = await setup.table.upsertRoute(
      { ...questionType, versions: [{ version: 2, weight: 100 }] },
      { who: 'rollout:ro-done' },
    );
    const created = await setup.repository.create(
      rolloutRecord({
        id: 'ro-done',
        state: 'completed',
        plan: { ...questionType, toVersion: 2 },
        fromVersions: [{ version: 1, weight: 100 }],
        weights: [{ version: 2, weight: 100 }],
        appliedEpoch: epoch,
      }),
    );
    // As the leader saves a completed record: the route's active marker is freed.
    await setup.repository.save(created);
    return setup;
  }

  it('starts a new rollout back to the previous weights and notes it on the undone one', async () => {
    const { svc, repository } = await completed();
    const undo = await svc.undo('ro-done', { force: false });
    expect(undo).toMatchObject({
      state: 'pending',
      undoOf: 'ro-done',
      weights: [{ version: 2, weight: 100 }],
      finalWeights: [{ version: 1, weight: 100 }],
      plan: { ...questionType, toVersion: 1, steps: [{ weight: 100, holdSeconds: 0 }] },
    });
    expect(await repository.activeId('*', 'question-type')).toBe(undo.id);
    expect((await svc.get('ro-done')).undoneBy).toBe(undo.id);
    // The undo is active: a second undo (or any rollout of the route) waits for it.
    await expect(svc.undo('ro-done', { force: true })).rejects.toBeInstanceOf(RolloutConflictError);
    // svc.command(id, 'undo') is the same call (the command table lists undo).
    await expect(svc.command('ro-done', 'undo')).rejects.toBeInstanceOf(RolloutConflictError);
  });

  it('refuses with ROUTE_CHANGED after a later edit of the route unless forced', async () => {
    const { svc, table } = await completed();
    const { epoch } = await table.upsertRoute(
      {
        ...questionType,
        versions: [
          { version: 2, weight: 50 },
          { version: 3, weight: 50 },
        ],
      },
      { who: 'admin:ops' },
    );
    // An edit of another route moves the table's epoch too, but does not refuse the undo.
    await table.upsertRoute(
      { tenant: '*', task: 'intent', model: 'intent-zh', versions: [{ version: 1, weight: 100 }] },
      { who: 'admin:ops' },
    );
    const refused = await svc.undo('ro-done', { force: false }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RouteChangedError);
    const error = refused as RouteChangedError;
    expect([error.code, ERROR_TABLE[error.code].http]).toEqual(['ROUTE_CHANGED', 409]);
    expect(error.changes).toEqual([{ epoch, who: 'admin:ops', action: 'route.upsert' }]);
    const forced = await svc.undo('ro-done', { force: true });
    expect(forced.weights).toEqual([
      { version: 2, weight: 50 },
      { version: 3, weight: 50 },
    ]);
    expect(forced.finalWeights).toEqual([{ version: 1, weight: 100 }]);
  });

  it('an edit of another route alone does not refuse the undo', async () => {
    const { svc, table } = await completed();
    await table.upsertRoute(
      { tenant: '*', task: 'intent', model: 'intent-zh', versions: [{ version: 1, weight: 100 }] },
      { who: 'admin:ops' },
    );
    await expect(svc.undo('ro-done', { force: false })).resolves.toMatchObject({
      undoOf: 'ro-done',
    });
  });

  it('refuses a rollout that did not complete, and one that does not exist', async () => {
    const { svc } = await service();
    const created = await svc.create(plan);
    await expect(svc.undo(created.id, { force: true })).rejects.toThrow(
      'cannot undo a rollout that is pending',
    );
    await expect(svc.undo('ro-missing', { force: false })).rejects.toBeInstanceOf(
      RolloutNotFoundError,
    );
  });
});
