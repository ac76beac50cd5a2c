import { InvalidPlanError } from './rollout.errors';
import { parseRolloutPlan } from './rollout-plan.schema';
import { MINIMAL_PLAN_BODY } from '../testing/rollout-fixtures';

const valid = MINIMAL_PLAN_BODY;

function issuesOf(input: unknown): string[] {
  try {
    parseRolloutPlan(input);
  } catch (err: unknown) {
    if (err instanceof InvalidPlanError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('parseRolloutPlan', () => {
  it('fills defaults: tenant *, onFailure rollback, bake 0, timezone UTC', () => {
    const plan = parseRolloutPlan({ ...valid, window: { cron: '0 3 * * *', durationMinutes: 60 } });
    expect(plan).toMatchObject({ tenant: '*', onFailure: 'rollback', bakeSeconds: 0 });
    expect(plan.window?.timezone).toBe('UTC');
  });

  it.each([
    [
      { ...valid, steps: [{ weight: 10, holdSeconds: 5 }] },
      'steps[0].weight: the last step must be 100 (got 10)',
    ],
    [{ ...valid, steps: [] }, 'steps: needs at least one step'],
    [
      {
        ...valid,
        steps: [
          { weight: 50, holdSeconds: 1 },
          { weight: 20, holdSeconds: 1 },
          { weight: 100, holdSeconds: 1 },
        ],
      },
      'steps[1].weight: weights must not decrease',
    ],
    [
      { ...valid, steps: [{ weight: 120, holdSeconds: 1 }] },
      'steps[0].weight: Number must be less than or equal to 100',
    ],
    [{ ...valid, toVersion: 0 }, 'toVersion: Number must be greater than 0'],
    [{ ...valid, model: undefined }, 'model: is required'],
    [
      { ...valid, window: { cron: '61 * * * *', timezone: 'UTC', durationMinutes: 5 } },
      'window.cron: cannot parse',
    ],
    [
      { ...valid, window: { cron: '0 3 * * *', timezone: 'Mars/Olympus', durationMinutes: 5 } },
      "window.timezone: unknown time zone 'Mars/Olympus'",
    ],
    [
      { ...valid, gates: { maxP99Ms: 100, maxP99Ratio: 2 } },
      'gates: give maxP99Ms or maxP99Ratio, not both',
    ],
    [{ ...valid, onFailure: 'ignore' }, "onFailure: must be one of rollback, pause (got 'ignore')"],
    [{ ...valid, extra: 1 }, "Unrecognized key(s) in object: 'extra'"],
  ])('refuses %j naming the field', (input, expected) => {
    expect(issuesOf(input).some((i) => i.includes(expected))).toBe(true);
  });

  it('reports every problem at once', () => {
    expect(issuesOf({ ...valid, toVersion: -1, steps: [{ weight: 5, holdSeconds: -1 }] })).toEqual([
      'toVersion: Number must be greater than 0',
      'steps[0].holdSeconds: Number must be greater than or equal to 0',
      'steps[0].weight: the last step must be 100 (got 5)',
    ]);
  });

  it('names every mistake of a plan in one answer: shape errors and the rules across fields', () => {
    const paths = issuesOf({
      ...valid,
      toVersion: 'two',
      steps: [
        { weight: 50, holdSeconds: 60 },
        { weight: 20, holdSeconds: 60 },
        { weight: 90, holdSeconds: 60 },
      ],
      window: { cron: '61 * * * *', timezone: 'Mars/Olympus', durationMinutes: 60 },
      gates: { maxP99Ms: 100, maxP99Ratio: 2 },
    }).map((i) => i.slice(0, i.indexOf(':')));
    expect(paths).toEqual([
      'toVersion',
      'steps[1].weight',
      'steps[2].weight',
      'gates',
      'window.timezone',
      'window.cron',
    ]);
  });

  it('still checks the rules across fields when the shape is wrong around them', () => {
    expect(
      issuesOf({
        task: 'question-type',
        steps: [{ weight: 30 }, { weight: 'x', holdSeconds: 1 }, { weight: 10, holdSeconds: 1 }],
        window: { cron: 'nope', durationMinutes: 'soon' },
      }),
    ).toEqual(
      expect.arrayContaining([
        'model: is required',
        'steps[0].holdSeconds: Required',
        'steps[2].weight: weights must not decrease',
        'steps[2].weight: the last step must be 100 (got 10)',
        expect.stringMatching(/^window\.cron: cannot parse 'nope'/),
      ]),
    );
  });

  it('skips the rules on a part that is not there or not an object', () => {
    expect(issuesOf('plan')).toEqual([': Expected object, received string']);
    expect(issuesOf({ ...valid, steps: 'all at once' })).toEqual([
      'steps: Expected array, received string',
    ]);
  });
});
