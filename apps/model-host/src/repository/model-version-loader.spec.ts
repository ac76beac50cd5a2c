import { defaultIntraOpThreads, defaultLoneBatchThreads } from './model-version-loader';

describe('defaultIntraOpThreads', () => {
  it('splits the available cores over the instances, at least one thread each', () => {
    expect(defaultIntraOpThreads(2, 1)).toBe(2);
    expect(defaultIntraOpThreads(2, 2)).toBe(1);
    expect(defaultIntraOpThreads(2, 4)).toBe(1);
    expect(defaultIntraOpThreads(8, 3)).toBe(2);
    expect(defaultIntraOpThreads(1, 0)).toBe(1);
  });
});

describe('defaultLoneBatchThreads', () => {
  it('gives several instances that split the cores one session with every core, else none', () => {
    expect(defaultLoneBatchThreads(2, 2, 1)).toBe(2);
    expect(defaultLoneBatchThreads(8, 4, 2)).toBe(8);
    // One instance already has every core; instances that each have them all need nothing.
    expect(defaultLoneBatchThreads(2, 1, 2)).toBe(0);
    expect(defaultLoneBatchThreads(2, 2, 2)).toBe(0);
    expect(defaultLoneBatchThreads(1, 2, 1)).toBe(0);
  });
});
