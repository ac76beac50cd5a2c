import { baselineVersion, sameWeights, weightsAt, weightsToward } from './rollout-weights';

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

describe('weightsToward', () => {
  const from = [{ version: 2, weight: 100 }];
  const to = [
    { version: 1, weight: 90 },
    { version: 2, weight: 10 },
  ];

  it('moves each version in proportion and keeps the leaving ones listed at 0', () => {
    expect(weightsToward(from, to, 50)).toEqual([
      { version: 1, weight: 45 },
      { version: 2, weight: 55 },
    ]);
    expect(weightsToward(from, to, 100)).toEqual(to);
    expect(weightsToward(to, from, 100)).toEqual([
      { version: 1, weight: 0 },
      { version: 2, weight: 100 },
    ]);
  });

  it('puts the rounding remainder on the heaviest version so the sum stays 100', () => {
    const thirds = [
      { version: 1, weight: 33.33 },
      { version: 2, weight: 33.33 },
      { version: 3, weight: 33.34 },
    ];
    const out = weightsToward(thirds, [{ version: 4, weight: 100 }], 33);
    expect(out.reduce((sum, v) => sum + v.weight, 0)).toBeCloseTo(100, 10);
    expect(out.find((v) => v.version === 4)?.weight).toBe(33);
  });
});
