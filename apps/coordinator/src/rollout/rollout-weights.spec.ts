import { baselineVersion, sameWeights, weightsAt } from './rollout-weights';

describe('weightsAt', () => {
  it('gives the new version its share and splits the rest in the old proportions', () => {
    expect(
      weightsAt(
        [
          { version: 1, weight: 90 },
          { version: 3, weight: 10 },
        ],
        4,
        20,
      ),
    ).toEqual([
      { version: 1, weight: 72 },
      { version: 3, weight: 8 },
      { version: 4, weight: 20 },
    ]);
  });

  it('replaces an existing canary weight of the target version', () => {
    expect(
      weightsAt(
        [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
        2,
        50,
      ),
    ).toEqual([
      { version: 1, weight: 50 },
      { version: 2, weight: 50 },
    ]);
  });

  it('keeps old versions listed at 0 at 100 %', () => {
    expect(weightsAt([{ version: 1, weight: 100 }], 2, 100)).toEqual([
      { version: 1, weight: 0 },
      { version: 2, weight: 100 },
    ]);
  });

  it('compares weights regardless of order and picks the heaviest old version as baseline', () => {
    expect(
      sameWeights(
        [
          { version: 2, weight: 1 },
          { version: 1, weight: 9 },
        ],
        [
          { version: 1, weight: 9 },
          { version: 2, weight: 1 },
        ],
      ),
    ).toBe(true);
    expect(sameWeights([{ version: 1, weight: 9 }], [{ version: 1, weight: 8 }])).toBe(false);
    expect(
      baselineVersion(
        [
          { version: 1, weight: 30 },
          { version: 3, weight: 70 },
          { version: 4, weight: 0 },
        ],
        4,
      ),
    ).toBe(3);
  });
});
