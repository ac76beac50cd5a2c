import { ERROR_TABLE } from '@mesh/errors';
import { meshWithRoute, MODEL, rolloutPlan, rolloutRecord, T0 } from '../testing/rollout-fixtures';
import { RolloutPlanValidator } from '../rollout/rollout-plan.check';
import { RolloutUndoPlanner } from '../rollout/rollout-undo';
import { ModelTooLargeError } from './placement.errors';
import { VersionSizeCheck } from './version-size.check';

function check(options: {
  measured?: Record<string, number>;
  declared?: number;
  largest: number | null;
}) {
  return new VersionSizeCheck(
    { footprints: async () => new Map(Object.entries(options.measured ?? {})) },
    {
      footprintMb: async () =>
        options.declared === undefined ? undefined : { mb: options.declared },
    },
    { largestBudgetMb: async () => options.largest },
  );
}

describe('VersionSizeCheck', () => {
  it('refuses a version larger than every budget: 422 MODEL_TOO_LARGE naming the numbers', async () => {
    const err = await check({ declared: 900, largest: 512 })
      .refuseTooLarge('m', 2)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelTooLargeError);
    expect(err).toMatchObject({
      code: 'MODEL_TOO_LARGE',
      model: 'm',
      version: 2,
      footprintMb: 900,
      largestBudgetMb: 512,
    });
    expect((err as Error).message).toBe(
      "version 2 of model 'm' needs 900 MB (memory_mb_v2), more than the largest backend budget (512 MB)",
    );
    expect(ERROR_TABLE.MODEL_TOO_LARGE.http).toBe(422);
  });

  it('counts a measured footprint before the declared one', async () => {
    await expect(
      check({ measured: { 'm@2': 400 }, declared: 900, largest: 512 }).refuseTooLarge('m', 2),
    ).resolves.toBeUndefined();
    await expect(
      check({ measured: { 'm@2': 600 }, declared: 100, largest: 512 }).refuseTooLarge('m', 2),
    ).rejects.toThrow('needs 600 MB');
  });

  it('refuses nothing while a backend is unbudgeted or the size is unknown', async () => {
    await expect(
      check({ declared: 900, largest: null }).refuseTooLarge('m', 2),
    ).resolves.toBeUndefined();
    await expect(check({ largest: 512 }).refuseTooLarge('m', 2)).resolves.toBeUndefined();
  });
});

describe('MODEL_TOO_LARGE at the rollout API', () => {
  it('refuses a plan whose new version no backend can hold', async () => {
    const mesh = meshWithRoute();
    const validator = new RolloutPlanValidator(mesh, mesh, check({ declared: 900, largest: 512 }));
    await expect(validator.validate(rolloutPlan())).rejects.toThrow(ModelTooLargeError);
    const fits = new RolloutPlanValidator(mesh, mesh, check({ declared: 100, largest: 512 }));
    await expect(fits.validate(rolloutPlan())).resolves.toEqual([{ version: 1, weight: 100 }]);
  });

  it('refuses an undo bringing back a version no backend can hold', async () => {
    const mesh = meshWithRoute([{ version: 2, weight: 100 }], [2]);
    const done = rolloutRecord({
      state: 'completed',
      fromVersions: [{ version: 1, weight: 100 }],
      weights: [{ version: 2, weight: 100 }],
      appliedEpoch: mesh.epoch,
    });
    const planner = new RolloutUndoPlanner(mesh, mesh, check({ declared: 900, largest: 512 }));
    await expect(
      planner.plan(done, { force: false, id: 'ro-undo', now: T0 }),
    ).rejects.toMatchObject({
      code: 'MODEL_TOO_LARGE',
      model: MODEL,
      version: 1,
    });
  });
});
